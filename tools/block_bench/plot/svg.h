// A small, self-contained SVG chart writer for block-bench's plots: panels
// stacked vertically, each with a linear or logarithmic x and y axis, line
// and dot series, horizontal reference lines and a legend.  No fonts or
// scripts are embedded; every renderer (browsers, rsvg-convert, Inkscape)
// draws it the same.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace blk::bench::plot {

struct Axis {
  std::string title;
  bool log = false;  // base 10; values <= 0 are dropped
  // Tick labels: the default prints the value with a k/M/G suffix.
  std::function<std::string(double)> format;
  // Ticks at these values instead of the automatic ones.
  std::vector<double> ticks;
};

struct Series {
  std::string label;  // in the legend; empty: not listed
  std::vector<std::pair<double, double>> points;
  bool line = true;   // joined in x order as given
  bool dots = false;
  int color = 0;      // index into the palette (8 colours, wraps)
  double width = 1.5;
  double opacity = 1.0;
};

struct HLine {
  double y = 0;
  int color = 0;
  std::string label;  // drawn at the right end, above the line
};

struct Panel {
  std::string title;
  std::string subtitle;  // a second line under the title
  Axis x, y;
  std::vector<Series> series;
  std::vector<HLine> hlines;
};

// The whole document: `title` on top, then each panel.  Points that are
// not finite (or not positive on a log axis) are dropped; a panel without
// points shows "no data".
std::string RenderSvg(const std::string& title, const std::vector<Panel>& panels,
                      int width = 900, int panel_height = 380);

// "12.3k", "4.5M", "900", "0.25": a short number for tick labels.
std::string ShortNumber(double v);

// Latency in ns as "850ns", "12.5us", "3.2ms", "1.5s".
std::string Duration(double ns);

}  // namespace blk::bench::plot
