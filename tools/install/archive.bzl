"""merged_archive: one static archive holding every object of our libraries."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _merged_archive_impl(ctx):
    archives = []
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            # Our own libraries only; system libraries are linker flags.
            if linker_input.owner.workspace_name != "":
                continue
            for lib in linker_input.libraries:
                a = lib.pic_static_library or lib.static_library
                if a and a not in archives:
                    archives.append(a)
    out = ctx.actions.declare_file(ctx.attr.out)
    script = ctx.actions.declare_file(ctx.attr.out + ".mri")
    ctx.actions.write(
        script,
        "create %s\n" % out.path +
        "".join(["addlib %s\n" % a.path for a in archives]) +
        "save\nend\n",
    )
    ar = find_cpp_toolchain(ctx).ar_executable
    ctx.actions.run_shell(
        inputs = archives + [script],
        outputs = [out],
        tools = find_cpp_toolchain(ctx).all_files,
        command = "'%s' -M < '%s' && '%s' -s '%s'" % (ar, script.path, ar, out.path),
        mnemonic = "MergeArchives",
        progress_message = "Merging %d archives into %s" % (len(archives), out.short_path),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

merged_archive = rule(
    implementation = _merged_archive_impl,
    doc = "Merges the static archives of `deps` (and of their dependencies " +
          "in this workspace) into one archive named `out`.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.string(mandatory = True),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)
