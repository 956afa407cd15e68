// fio's memory options: mem/iomem (the type of memory the I/O buffers come
// from, with an optional file for the mmap types), iomem_align/mem_align
// and hugepage-size.  The runner allocates the buffers (run/io_memory.h).
#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::FioValueError;

struct MemName {
  std::string_view name;
  IoMem type;
  bool takes_file;
};
constexpr MemName kMemNames[] = {
    {"malloc", IoMem::kMalloc, false},     {"shm", IoMem::kShm, false},
    {"shmhuge", IoMem::kShmHuge, false},   {"mmap", IoMem::kMmap, true},
    {"mmaphuge", IoMem::kMmapHuge, true},  {"mmapshared", IoMem::kMmapShared, true}};

FioOptionSpec Mem() {
  FioOptionSpec s;
  s.name = "mem";
  s.aliases = {"iomem"};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::string_view type = *v, file;
    const size_t colon = type.find(':');
    if (colon != std::string_view::npos) {
      file = type.substr(colon + 1);
      type = type.substr(0, colon);
    }
    if (type == "cudamalloc")
      return FioValueError("mem=cudamalloc is GPU memory for fio's rdma engine (GPUDirect); "
                           "block-bench has neither a GPU allocator nor the rdma engine");
    for (const MemName& m : kMemNames) {
      if (m.name != type) continue;
      if (colon != std::string_view::npos && !m.takes_file)
        return FioValueError("mem=" + std::string(type) + " takes no file (only mmap, mmaphuge "
                             "and mmapshared map one), got " + QuoteInput(*v));
      if (colon != std::string_view::npos && file.empty())
        return FioValueError("expected a file name after " + std::string(type) + ":");
      job.mem.type = m.type;
      job.mem.file = std::string(file);
      return {};
    }
    return FioValueError("expected malloc, shm, shmhuge, mmap[:FILE], mmaphuge[:FILE] or "
                         "mmapshared[:FILE], got " + QuoteInput(*v));
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.mem.type == DefaultJob().mem.type && job.mem.file.empty()) return;
    for (const MemName& m : kMemNames) {
      if (m.type != job.mem.type) continue;
      std::string v(m.name);
      if (!job.mem.file.empty()) v += ":" + job.mem.file;
      out.push_back({std::string(n), v});
    }
  };
  s.help = "memory of the I/O buffers: malloc (default: private anonymous memory), shm "
           "(shmget(2)), shmhuge (shm on huge pages), mmap[:FILE] (mmap(2), anonymous or of "
           "FILE), mmapshared[:FILE] (FILE mapped MAP_SHARED), mmaphuge[:FILE] (huge pages: MAP_HUGETLB, or "
           "FILE on hugetlbfs)";
  return s;
}

FioOptionSpec MemAlign() {
  FioOptionSpec s;
  s.name = "iomem_align";
  s.aliases = {"mem_align"};
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 0, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.mem.align = uint32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.mem.align) out.push_back({std::string(n), std::to_string(job.mem.align)});
  };
  s.help = "every I/O buffer starts this many bytes past a page boundary (0: page-aligned); "
           "with direct=1 a value the target's memory alignment does not divide is an error "
           "(fio's I/Os fail with EINVAL)";
  return s;
}

FioOptionSpec HugepageSize() {
  FioOptionSpec s;
  s.name = "hugepage-size";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base, 1);
    if (!n.ok()) return n.error();
    if (n.value() & (n.value() - 1))
      return FioValueError("expected a power of two (the huge page size, e.g. 2m), got " +
                           QuoteInput(*v));
    job.mem.hugepage_size = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.mem.hugepage_size != DefaultJob().mem.hugepage_size)
      out.push_back({std::string(n), std::to_string(job.mem.hugepage_size)});
  };
  s.help = "huge page size mem=shmhuge and mem=mmaphuge round the buffers up to (default 2 MiB; "
           "a power of two)";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> MemoryOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(Mem());
  v.push_back(MemAlign());
  v.push_back(HugepageSize());
  return v;
}

}  // namespace blk::bench
