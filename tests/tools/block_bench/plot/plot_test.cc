// block-bench's SVG plots: log parsing, the charts' content.
#include "tools/block_bench/plot/plot.h"

#include <gtest/gtest.h>

namespace blk::bench::plot {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) n++;
  return n;
}

TEST(PlotTest, ParsesFioLogs) {
  auto l = ParseLog("0, 1200, 0, 4096, 0\n\n10, 1500, 1, 4096, 8192, 0\n20, 900\n",
                    "/x/job_clat.1.log");
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->kind, LogData::kLatency);
  EXPECT_EQ(l->name, "job_clat.1.log");
  ASSERT_EQ(l->points.size(), 3u);
  EXPECT_EQ(l->points[1].ms, 10);
  EXPECT_EQ(l->points[1].value, 1500);
  EXPECT_EQ(l->points[1].dir, 1);
  EXPECT_EQ(ParseLog("", "a_iops.1.log")->kind, LogData::kIops);
  EXPECT_EQ(ParseLog("", "a_bw.log")->kind, LogData::kBandwidth);
}

TEST(PlotTest, LogErrorsNameFileAndLine) {
  auto bad = ParseLog("0, 1\nx, y\n", "j_lat.1.log");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "j_lat.1.log:2: expected 'msec, value, direction, ...', got 'x, y'");
  // A direction that does not fit an int (found by plot_log_fuzz: UB).
  auto dir = ParseLog("1615, 200, 1111111111111111111\n", "j_lat.1.log");
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message.find("j_lat.1.log:1: the direction (third field) must be 0, 1, 2 or 3"),
            std::string::npos) << dir.error().message;
  auto name = ParseLog("0, 1\n", "results.txt");
  ASSERT_FALSE(name);
  EXPECT_NE(name.error().message.find("results.txt: not a log file name"), std::string::npos);
}

TEST(PlotTest, SvgHasOneLinePerSeriesAndEscapesText) {
  Panel p;
  p.title = "a <b> & c";
  p.y.log = true;
  p.series.push_back({"one", {{0, 10}, {1, 100}, {2, 1000}}});
  p.series.push_back({"two", {{0, 20}, {1, -5}, {2, 2000}}});  // -5 dropped on a log axis
  p.hlines.push_back({50, 0, "median"});
  const std::string svg = RenderSvg("t", {p});
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find(">median</text>"), std::string::npos);
  EXPECT_NE(svg.find(">one</text>"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// Values where a tick step does not move a double (near 1e17 a step of 20
// is below the precision): plot_log_fuzz found an endless tick loop.
TEST(PlotTest, TicksOfHugeValuesEnd) {
  Panel p;
  p.series.push_back({"x", {{1e17, 1}, {1e17 + 100, 2}}});
  p.series.push_back({"z", {{3, 9.999999e18}, {4, 9.999999e18 + 4096}}});
  p.series.push_back({"y", {{1, 1e-300}, {2, 1e300}}});
  p.y.log = true;
  const std::string svg = RenderSvg("t", {p});
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_LT(svg.size(), 100000u);
}

TEST(PlotTest, EmptyPanelSaysNoData) {
  Panel p;
  p.title = "nothing";
  const std::string svg = RenderSvg("t", {p});
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 0u);
}

TEST(PlotTest, PercentileCurvesUseTheNinesAxis) {
  verdict::ResultDoc d;
  d.path = "/r/run1.json";
  verdict::Sample s;
  s.job = "j";
  s.curve = {{50, 1000}, {90, 2000}, {99, 5000}, {99.9, 9000}, {100, 20000}};
  d.samples.push_back(s);
  const Panel p = PercentilePanel({d}, {});
  ASSERT_EQ(p.series.size(), 1u);
  EXPECT_EQ(p.series[0].label, "run1.json j read");
  ASSERT_EQ(p.series[0].points.size(), 5u);
  EXPECT_NEAR(p.series[0].points[1].first, 1, 1e-9);  // 90 %
  EXPECT_NEAR(p.series[0].points[2].first, 2, 1e-9);  // 99 %
  EXPECT_NEAR(p.series[0].points[4].first, 6, 1e-9);  // the maximum, at 99.9999 %
  EXPECT_EQ(p.x.format(2), "99%");
  EXPECT_EQ(p.x.format(3), "99.9%");
  EXPECT_EQ(p.y.format(12500), "12.5us");
}

TEST(PlotTest, ResultCurvesComeFromBinsWhenPresent) {
  auto d = verdict::ParseResultJson(
      "{\"fio version\": \"x\", \"jobs\": [{\"jobname\": \"j\", \"read\": {\"total_ios\": 4, "
      "\"iops\": 1, \"clat_ns\": {\"mean\": 3, \"percentile\": {\"50.000000\": 7}, "
      "\"bins\": {\"300\": 1, \"100\": 2, \"900\": 1}}}}]}",
      "r.json");
  ASSERT_TRUE(d) << d.error().message;
  const auto& c = d->samples[0].curve;
  ASSERT_EQ(c.size(), 3u);
  // Each bin at the middle of its share of the 4 completions.
  EXPECT_EQ(c[0], std::make_pair(25.0, 100.0));
  EXPECT_EQ(c[1], std::make_pair(62.5, 300.0));
  EXPECT_EQ(c[2], std::make_pair(87.5, 900.0));
}

}  // namespace
}  // namespace blk::bench::plot
