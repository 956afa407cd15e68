#include "tools/block_bench/verdict/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "tools/block_bench/verdict/stats.h"

namespace blk::bench::verdict {
namespace {

using Key = std::pair<std::string, int>;  // job, direction

// Values of each (job, direction, metric) over a side's runs.
struct Side {
  std::map<Key, std::array<std::vector<double>, kNumMetrics>> values;
  std::set<Key> keys;
};

Side Collect(const std::vector<ResultDoc>& docs) {
  Side s;
  for (const ResultDoc& d : docs) {
    for (const Sample& x : d.samples) {
      const Key k{x.job, x.dir};
      s.keys.insert(k);
      for (int m = 0; m < kNumMetrics; m++)
        if (x.has[m]) s.values[k][m].push_back(x.value[m]);
    }
  }
  return s;
}

// The interval of a row's change with "worse" positive: latencies up, IOPS
// and bandwidth down.
Interval WorseSide(const Row& r) {
  if (Info(r.metric).higher_is_better) return {-r.ci.hi, -r.ci.lo};
  return r.ci;
}

Verdict Decide(const Row& r, const CompareOptions& o) {
  const double t = o.threshold;
  if (!std::isfinite(r.ci.lo) || !std::isfinite(r.ci.hi)) return Verdict::kUnknown;
  if (r.ci.lo >= -t && r.ci.hi <= t) return Verdict::kSame;
  const auto [worse_lo, worse_hi] = WorseSide(r);
  // A change must also pass the Mann-Whitney U test: the percentile
  // bootstrap of a median under-covers at small counts and with heavy tails
  // (an A/A pair of 6 runs each gave [+17 %, +382 %] on a p99), while the
  // rank test keeps its level whatever the distribution.
  const bool significant = r.p_value < (1 - o.confidence) / 2;
  if (worse_lo > 0) return significant ? Verdict::kWorse : Verdict::kUnknown;
  if (worse_hi < 0) return significant ? Verdict::kBetter : Verdict::kUnknown;
  // Straddling 0 but excluding a regression beyond the band: not worse,
  // which is what "same" answers for a bisect (the row's note says more).
  if (worse_hi <= t) return Verdict::kSame;
  return Verdict::kUnknown;
}

std::string Percent(double x) {
  if (!std::isfinite(x)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * x);
  return buf;
}

// Values as people read them: latencies in us, IOPS and bandwidth with a
// k/M/G suffix.
std::string Value(Metric m, double v) {
  char buf[32];
  if (Info(m).is_latency) {
    std::snprintf(buf, sizeof buf, "%.1fus", v / 1000);
  } else {
    const char* unit = "";
    if (v >= 1e9) v /= 1e9, unit = "G";
    else if (v >= 1e6) v /= 1e6, unit = "M";
    else if (v >= 1e3) v /= 1e3, unit = "k";
    std::snprintf(buf, sizeof buf, "%.2f%s", v, unit);
  }
  return buf;
}

// What a side that lacks the metric shows: a dash, not a number.
constexpr char kNoValue[] = "\u2014";  // "—"

// `s` right-aligned in `width` columns, counting characters, not bytes
// (printf's %12s would count the dash's three UTF-8 bytes).
std::string RightAligned(const std::string& s, size_t width) {
  size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return chars >= width ? s : std::string(width - chars, ' ') + s;
}

// The largest spread of metric m over the rows that have values on both
// sides; NaN when none has.
double MetricSpread(const Comparison& c, Metric m) {
  double worst = NAN;
  for (const Row& r : c.rows)
    if (r.metric == m && !r.base.empty() && !r.neu.empty() && !std::isnan(r.spread))
      worst = std::isnan(worst) ? r.spread : std::max(worst, r.spread);
  return worst;
}

std::string SpreadText(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * x);
  return buf;
}

// Sets c.deciding (and c.chosen, c.notes): the named metrics, or the
// candidate chosen by spread (verdict.h).
void ChooseDeciding(const CompareOptions& o, Comparison& c) {
  const double limit = kNoisyFactor * o.threshold;
  const Metric candidates[] = {Metric::kSchedP99, Metric::kSchedP50, Metric::kP99, Metric::kP50};
  // The first candidate within the limit, and the least noisy one.
  std::optional<Metric> quiet, least;
  double least_spread = NAN;
  for (Metric m : candidates) {
    const double x = MetricSpread(c, m);
    if (std::isnan(x)) continue;
    if (!quiet && x <= limit) quiet = m;
    if (!least || x < least_spread) least = m, least_spread = x;
  }
  const std::string limit_text =
      " (limit " + SpreadText(limit) + ", " + std::to_string(int(kNoisyFactor)) + "x the band)";
  auto too_noisy = [&](Metric m) {
    return std::string(Info(m).name) + " too noisy to decide: run-to-run spread " +
           SpreadText(MetricSpread(c, m)) + limit_text;
  };
  if (!o.metrics.empty()) {
    c.deciding = o.metrics;
    for (Metric m : o.metrics) {
      const double x = MetricSpread(c, m);
      if (std::isnan(x) || x <= limit) continue;
      std::string note = too_noisy(m);
      if (quiet && *quiet != m)
        note += "; " + std::string(Info(*quiet).name) + "'s is " +
                SpreadText(MetricSpread(c, *quiet)) + ": use --metric=" + Info(*quiet).name;
      c.notes.push_back(note);
    }
    return;
  }
  c.chosen = true;
  if (!least) {  // no latency values on both sides: p99, as before
    c.deciding = {Metric::kP99};
    return;
  }
  const Metric pick = quiet ? *quiet : *least;
  c.deciding = {pick};
  for (Metric m : candidates) {
    if (m == pick) break;
    if (!std::isnan(MetricSpread(c, m))) c.notes.push_back(too_noisy(m));
  }
  if (quiet) {
    c.notes.push_back("deciding on " + std::string(Info(pick).name) + " (run-to-run spread " +
                      SpreadText(MetricSpread(c, pick)) + ")");
  } else {
    c.notes.push_back("every latency metric is too noisy: deciding on the least noisy, " +
                      std::string(Info(pick).name) +
                      "; expect unknown unless the change is large (more I/Os per run, or a "
                      "wider --threshold, narrow it)");
  }
}

}  // namespace

const char* Name(Verdict v) {
  switch (v) {
    case Verdict::kBetter: return "better";
    case Verdict::kSame: return "same";
    case Verdict::kWorse: return "worse";
    case Verdict::kUnknown: return "unknown";
  }
  return "unknown";
}

int ExitCode(Verdict v) {
  switch (v) {
    case Verdict::kBetter:
    case Verdict::kSame: return 0;
    case Verdict::kWorse: return 1;
    case Verdict::kUnknown: return 125;
  }
  return 125;
}

Comparison Compare(const std::vector<ResultDoc>& base, const std::vector<ResultDoc>& neu,
                   const CompareOptions& o) {
  Comparison c;
  // A failed or interrupted run is no sample: left out, and a problem.
  std::vector<ResultDoc> counted[2];
  for (int k = 0; k < 2; k++) {
    const bool is_base = k == 0;  // (base and neu may be the same vector)
    for (const ResultDoc& d : is_base ? base : neu) {
      const std::string run = (is_base ? "BASE run " : "NEW run ") + d.path;
      if (d.failed)
        c.problems.push_back(run + " reported an error (" + d.failure + "): left out");
      else if (d.interrupted)
        c.problems.push_back(run + ": " + d.interruption + ": left out");
      else
        counted[k].push_back(d);
    }
  }
  c.base_runs = counted[0].size();
  c.new_runs = counted[1].size();
  const Side b = Collect(counted[0]), n = Collect(counted[1]);
  for (const Key& k : b.keys)
    if (!n.keys.count(k))
      c.problems.push_back("job '" + k.first + "' " + DirName(k.second) + " is in BASE only");
  for (const Key& k : n.keys)
    if (!b.keys.count(k))
      c.problems.push_back("job '" + k.first + "' " + DirName(k.second) + " is in NEW only");

  uint64_t seed = o.seed;
  for (const Key& k : b.keys) {
    if (!n.keys.count(k)) continue;
    for (const MetricInfo& mi : AllMetrics()) {
      const int m = int(mi.metric);
      auto bi = b.values.find(k);
      auto ni = n.values.find(k);
      const std::vector<double> empty;
      const std::vector<double>& bv = bi == b.values.end() ? empty : bi->second[m];
      const std::vector<double>& nv = ni == n.values.end() ? empty : ni->second[m];
      if (bv.empty() && nv.empty()) continue;  // neither document has the metric
      Row r;
      r.job = k.first;
      r.dir = k.second;
      r.metric = mi.metric;
      r.base = bv;
      r.neu = nv;
      // A side that has the metric shows its median even when the other
      // side lacks it (fio's JSON has no sched lat).
      if (!bv.empty()) r.base_median = Median(bv);
      if (!nv.empty()) r.new_median = Median(nv);
      if (bv.empty() || nv.empty()) {
        r.change = r.ci.lo = r.ci.hi = NAN;
        r.note = std::string("no value in ") + (bv.empty() ? "BASE" : "NEW");
      } else {
        r.change = r.base_median != 0 ? r.new_median / r.base_median - 1 : NAN;
        r.ci = BootstrapChange(bv, nv, o.confidence, o.resamples, seed++);
        r.p_value = MannWhitneyP(bv, nv);
        const double sb = Spread(bv), sn = Spread(nv);
        r.spread = std::isnan(sb) ? sn : std::isnan(sn) ? sb : std::max(sb, sn);
        if (int(bv.size()) < o.min_runs || int(nv.size()) < o.min_runs) {
          r.note = "fewer than " + std::to_string(o.min_runs) + " runs on a side";
        } else if (r.base_median == 0) {
          r.note = "BASE median is 0";
        } else {
          r.verdict = Decide(r, o);
          // "Same" that reaches past the band on the better side.
          if (r.verdict == Verdict::kSame && WorseSide(r).lo < -o.threshold)
            r.note = "may be better";
        }
      }
      c.rows.push_back(std::move(r));
    }
  }

  ChooseDeciding(o, c);
  bool any_deciding = false, any_worse = false, any_unknown = false, any_better = false;
  for (Row& r : c.rows) {
    r.deciding = std::find(c.deciding.begin(), c.deciding.end(), r.metric) != c.deciding.end();
    if (!r.deciding) continue;
    any_deciding = true;
    any_worse |= r.verdict == Verdict::kWorse;
    any_unknown |= r.verdict == Verdict::kUnknown;
    any_better |= r.verdict == Verdict::kBetter;
  }
  if (!any_deciding) {
    std::string names;
    for (Metric m : c.deciding) names += std::string(names.empty() ? "" : ",") + Info(m).name;
    c.problems.push_back("no job has the deciding metric" +
                         std::string(c.deciding.size() > 1 ? "s " : " ") + names + " on both sides");
  }
  if (any_worse) c.overall = Verdict::kWorse;
  else if (any_unknown || !c.problems.empty()) c.overall = Verdict::kUnknown;
  else if (any_better) c.overall = Verdict::kBetter;
  else c.overall = Verdict::kSame;
  // A failed run or a job missing on one side makes "worse" unreliable too:
  // the numbers are of a run that did not do what was asked.
  if (!c.problems.empty()) c.overall = Verdict::kUnknown;
  return c;
}

std::string TextReport(const Comparison& c, const CompareOptions& o) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "BASE: %zu run%s, NEW: %zu run%s; noise band +-%.1f%%, confidence %.0f%%\n",
                c.base_runs, c.base_runs == 1 ? "" : "s", c.new_runs, c.new_runs == 1 ? "" : "s",
                100 * o.threshold, 100 * o.confidence);
  out += buf;
  std::snprintf(buf, sizeof buf, "%-24s %-5s %-13s %12s %12s %8s %20s %7s  %s\n", "job", "dir",
                "metric", "BASE", "NEW", "change", "interval", "spread", "verdict");
  out += buf;
  for (const Row& r : c.rows) {
    const std::string ci = "[" + Percent(r.ci.lo) + ", " + Percent(r.ci.hi) + "]";
    std::string verdict = Name(r.verdict);
    if (r.deciding) verdict += " *";
    if (!r.note.empty()) verdict += " (" + r.note + ")";
    char spread[16] = "-";
    if (!std::isnan(r.spread)) std::snprintf(spread, sizeof spread, "%.1f%%", 100 * r.spread);
    const std::string base = r.base.empty() ? kNoValue : Value(r.metric, r.base_median);
    const std::string neu = r.neu.empty() ? kNoValue : Value(r.metric, r.new_median);
    std::snprintf(buf, sizeof buf, "%-24s %-5s %-13s %s %s %8s %20s %7s  %s\n",
                  r.job.size() > 24 ? (r.job.substr(0, 21) + "...").c_str() : r.job.c_str(),
                  DirName(r.dir), Info(r.metric).title, RightAligned(base, 12).c_str(),
                  RightAligned(neu, 12).c_str(), Percent(r.change).c_str(), ci.c_str(), spread,
                  verdict.c_str());
    out += buf;
  }
  out += c.chosen ? "(* deciding metric, chosen by run-to-run spread = IQR/median)\n"
                  : "(* deciding metric; spread = run-to-run IQR/median)\n";
  for (const std::string& n : c.notes) out += "note: " + n + "\n";
  for (const std::string& p : c.problems) out += "problem: " + p + "\n";
  std::snprintf(buf, sizeof buf, "verdict: %s (exit %d)\n", Name(c.overall), ExitCode(c.overall));
  out += buf;
  return out;
}

nlohmann::ordered_json JsonReport(const Comparison& c, const CompareOptions& o) {
  nlohmann::ordered_json j;
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nullptr; };
  nlohmann::ordered_json opts;
  std::vector<std::string> metrics;
  for (Metric m : c.deciding) metrics.push_back(Info(m).name);
  opts["metrics"] = metrics;
  opts["metrics_chosen_by_spread"] = c.chosen;
  opts["threshold"] = o.threshold;
  opts["confidence"] = o.confidence;
  opts["min_runs"] = o.min_runs;
  opts["resamples"] = o.resamples;
  j["options"] = opts;
  j["base_runs"] = c.base_runs;
  j["new_runs"] = c.new_runs;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Row& r : c.rows) {
    nlohmann::ordered_json x;
    x["job"] = r.job;
    x["dir"] = DirName(r.dir);
    x["metric"] = Info(r.metric).name;
    x["deciding"] = r.deciding;
    x["base"] = r.base;
    x["new"] = r.neu;
    x["base_median"] = r.base.empty() ? nlohmann::ordered_json(nullptr) : num(r.base_median);
    x["new_median"] = r.neu.empty() ? nlohmann::ordered_json(nullptr) : num(r.new_median);
    x["change"] = num(r.change);
    x["ci_low"] = num(r.ci.lo);
    x["ci_high"] = num(r.ci.hi);
    x["mann_whitney_p"] = num(r.p_value);
    x["spread"] = num(r.spread);
    x["verdict"] = Name(r.verdict);
    if (!r.note.empty()) x["note"] = r.note;
    rows.push_back(std::move(x));
  }
  j["rows"] = rows;
  j["notes"] = c.notes;
  j["problems"] = c.problems;
  j["verdict"] = Name(c.overall);
  j["exit_code"] = ExitCode(c.overall);
  return j;
}

}  // namespace blk::bench::verdict
