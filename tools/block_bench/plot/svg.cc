#include "tools/block_bench/plot/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tools/block_bench/format/format.h"

namespace blk::bench::plot {
namespace {

constexpr const char* kPalette[8] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string Esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        // Control bytes are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') o += ' ';
        else o += c;
    }
  }
  return o;
}

std::string Num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

struct Scale {
  bool log = false;
  double lo = 0, hi = 1;   // in data units (log: of the value, not the log)
  double p0 = 0, p1 = 1;   // pixels
  double T(double v) const { return log ? std::log10(v) : v; }
  double operator()(double v) const {
    const double a = T(lo), b = T(hi);
    return p0 + (T(v) - a) / (b - a) * (p1 - p0);
  }
};

bool Usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// "Nice" linear ticks: 1, 2 or 5 times a power of ten, about 6 of them.
std::vector<double> LinearTicks(double lo, double hi) {
  std::vector<double> t;
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 6;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  // By index, not by adding steps: near 1e17 a step of 20 does not move a
  // double at all (plot_log_fuzz found the endless loop).
  const double first = std::ceil(lo / step), last = std::floor(hi / step + 1e-9);
  if (!std::isfinite(first) || !std::isfinite(last) || !(last - first <= 50) || first + 1 == first)
    return {lo, hi};
  const int n = int(last - first);
  for (int i = 0; i <= n; i++) {
    const double v = (first + i) * step;
    if (!t.empty() && v <= t.back()) continue;
    t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  if (t.empty()) return {lo, hi};
  return t;
}

std::vector<double> LogTicks(double lo, double hi) {
  std::vector<double> t;
  const int a = int(std::floor(std::log10(lo))), b = int(std::ceil(std::log10(hi)));
  if (b - a > 40) {
    // Tens of decades: every tenth one is plenty.
    for (int e = a; e <= b; e += (b - a) / 10) t.push_back(std::pow(10, e));
    return t;
  }
  const bool dense = b - a <= 2;
  for (int e = a; e <= b; e++)
    for (double m : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double v = m * std::pow(10, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
    }
  if (t.size() < 3) {
    // Less than a decade: evenly spaced round values read better.
    t.clear();
    for (double v : LinearTicks(lo, hi))
      if (v > 0) t.push_back(v);
  }
  return t;
}

// Data range of an axis over all series of a panel (and the h-lines for y).
bool Range(const Panel& p, bool y_axis, double* lo, double* hi) {
  const bool log = y_axis ? p.y.log : p.x.log;
  *lo = std::numeric_limits<double>::infinity();
  *hi = -*lo;
  for (const Series& s : p.series)
    for (auto [x, y] : s.points) {
      if (!Usable(x, p.x.log) || !Usable(y, p.y.log)) continue;
      const double v = y_axis ? y : x;
      *lo = std::min(*lo, v);
      *hi = std::max(*hi, v);
    }
  if (y_axis)
    for (const HLine& h : p.hlines)
      if (Usable(h.y, log)) *lo = std::min(*lo, h.y), *hi = std::max(*hi, h.y);
  if (!(*lo <= *hi)) return false;
  if (*lo == *hi) {
    if (log) *lo /= 2, *hi *= 2;
    else *lo -= 1, *hi += 1;
  } else if (log) {
    *lo /= 1.15, *hi *= 1.15;
  } else {
    const double pad = (*hi - *lo) * 0.05;
    if (!(y_axis && *lo >= 0 && *lo - pad < 0)) *lo -= pad;
    else *lo = 0;
    *hi += pad;
  }
  return true;
}

void DrawPanel(std::string& o, const Panel& p, double top, int width, int height) {
  const double left = 80, right = width - 190, ptop = top + 48, pbottom = top + height - 52;
  o += "<text x=\"" + Num(left) + "\" y=\"" + Num(top + 18) +
       "\" font-size=\"14\" font-weight=\"bold\">" + Esc(p.title) + "</text>\n";
  if (!p.subtitle.empty())
    o += "<text x=\"" + Num(left) + "\" y=\"" + Num(top + 36) + "\" font-size=\"12\" fill=\"#444\">" +
         Esc(p.subtitle) + "</text>\n";
  o += "<rect x=\"" + Num(left) + "\" y=\"" + Num(ptop) + "\" width=\"" + Num(right - left) +
       "\" height=\"" + Num(pbottom - ptop) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  double xlo, xhi, ylo, yhi;
  if (!Range(p, false, &xlo, &xhi) || !Range(p, true, &ylo, &yhi)) {
    o += "<text x=\"" + Num((left + right) / 2) + "\" y=\"" + Num((ptop + pbottom) / 2) +
         "\" text-anchor=\"middle\" font-size=\"14\" fill=\"#888\">no data</text>\n";
    return;
  }
  const Scale sx{p.x.log, xlo, xhi, left, right};
  const Scale sy{p.y.log, ylo, yhi, pbottom, ptop};
  auto fmt = [](const Axis& a, double v) { return a.format ? a.format(v) : ShortNumber(v); };
  // Grid and ticks.
  const std::vector<double> xt = !p.x.ticks.empty() ? p.x.ticks
                                 : p.x.log ? LogTicks(xlo, xhi) : LinearTicks(xlo, xhi);
  for (double v : xt) {
    if (v < xlo || v > xhi) continue;
    const double px = sx(v);
    o += "<line x1=\"" + Num(px) + "\" y1=\"" + Num(ptop) + "\" x2=\"" + Num(px) + "\" y2=\"" +
         Num(pbottom) + "\" stroke=\"#e5e5e5\"/>\n";
    o += "<text x=\"" + Num(px) + "\" y=\"" + Num(pbottom + 16) +
         "\" text-anchor=\"middle\" font-size=\"11\">" + Esc(fmt(p.x, v)) + "</text>\n";
  }
  const std::vector<double> yt = !p.y.ticks.empty() ? p.y.ticks
                                 : p.y.log ? LogTicks(ylo, yhi) : LinearTicks(ylo, yhi);
  for (double v : yt) {
    if (v < ylo || v > yhi) continue;
    const double py = sy(v);
    o += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(py) + "\" x2=\"" + Num(right) + "\" y2=\"" +
         Num(py) + "\" stroke=\"#e5e5e5\"/>\n";
    o += "<text x=\"" + Num(left - 6) + "\" y=\"" + Num(py + 4) +
         "\" text-anchor=\"end\" font-size=\"11\">" + Esc(fmt(p.y, v)) + "</text>\n";
  }
  o += "<text x=\"" + Num((left + right) / 2) + "\" y=\"" + Num(pbottom + 36) +
       "\" text-anchor=\"middle\" font-size=\"12\">" + Esc(p.x.title) + "</text>\n";
  o += "<text transform=\"translate(" + Num(left - 62) + "," + Num((ptop + pbottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" + Esc(p.y.title) + "</text>\n";
  // Series, clipped to the plot area.
  for (const Series& s : p.series) {
    const char* c = kPalette[((s.color % 8) + 8) % 8];
    std::string pts;
    std::vector<std::pair<double, double>> px;
    for (auto [x, y] : s.points) {
      if (!Usable(x, p.x.log) || !Usable(y, p.y.log)) continue;
      px.push_back({sx(x), sy(y)});
    }
    if (s.line && px.size() > 1) {
      for (auto [x, y] : px) pts += Num(x) + "," + Num(y) + " ";
      o += "<polyline fill=\"none\" stroke=\"" + std::string(c) + "\" stroke-width=\"" +
           Num(s.width) + "\" stroke-opacity=\"" + Num(s.opacity) + "\" points=\"" + pts +
           "\"/>\n";
    }
    if (s.dots || px.size() == 1)
      for (auto [x, y] : px)
        o += "<circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) + "\" r=\"3\" fill=\"" + c +
             "\" fill-opacity=\"" + Num(std::max(0.5, s.opacity)) + "\"/>\n";
  }
  for (const HLine& h : p.hlines) {
    if (!Usable(h.y, p.y.log) || h.y < ylo || h.y > yhi) continue;
    const char* c = kPalette[((h.color % 8) + 8) % 8];
    const double py = sy(h.y);
    o += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(py) + "\" x2=\"" + Num(right) + "\" y2=\"" +
         Num(py) + "\" stroke=\"" + c + "\" stroke-dasharray=\"6,4\"/>\n";
    if (!h.label.empty())
      o += "<text x=\"" + Num(right - 4) + "\" y=\"" + Num(py - 4) +
           "\" text-anchor=\"end\" font-size=\"11\" fill=\"" + c + "\">" + Esc(h.label) +
           "</text>\n";
  }
  // Legend, right of the plot.
  double ly = ptop + 8;
  for (const Series& s : p.series) {
    if (s.label.empty()) continue;
    const char* c = kPalette[((s.color % 8) + 8) % 8];
    o += "<rect x=\"" + Num(right + 12) + "\" y=\"" + Num(ly - 8) + "\" width=\"14\" height=\"4\" fill=\"" +
         c + "\"/>\n";
    std::string label = s.label.size() > 26 ? s.label.substr(0, 23) + "..." : s.label;
    o += "<text x=\"" + Num(right + 32) + "\" y=\"" + Num(ly - 3) + "\" font-size=\"11\">" +
         Esc(label) + "</text>\n";
    ly += 16;
    if (ly > pbottom) break;
  }
}

}  // namespace

std::string ShortNumber(double v) { return FormatScaled(v, kSiShortest); }

std::string Duration(double ns) { return FormatScaled(ns, kSecondsShortest); }

std::string RenderSvg(const std::string& title, const std::vector<Panel>& panels, int width,
                      int panel_height) {
  const int height = 40 + panel_height * int(std::max<size_t>(1, panels.size()));
  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
       "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
       " " + std::to_string(height) + "\" font-family=\"sans-serif\">\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o += "<text x=\"" + std::to_string(width / 2) +
       "\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" + Esc(title) +
       "</text>\n";
  for (size_t i = 0; i < panels.size(); i++)
    DrawPanel(o, panels[i], 40 + double(i) * panel_height, width, panel_height);
  o += "</svg>\n";
  return o;
}

}  // namespace blk::bench::plot
