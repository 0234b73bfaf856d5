#include "tools/livetune/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace livetune::cli {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else out += ch;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string latency_svg(const std::string& title, const std::vector<double>& per_call_us,
                        const std::vector<KernelChange>& changes) {
  constexpr double kWidth = 1000, kHeight = 520, kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  // Log scale: the built-in kernel's first calls can be 10x slower than the tuned kernel.
  std::vector<double> sorted = per_call_us;
  std::sort(sorted.begin(), sorted.end());
  const double lo = std::max(1e-3, sorted.empty() ? 1.0 : sorted.front());
  const double hi = std::max(lo * 1.5, sorted.empty() ? 10.0 : sorted.back());
  const double llo = std::log10(lo) - 0.05, lhi = std::log10(hi) + 0.05;
  const size_t n = std::max<size_t>(per_call_us.size(), 2);
  auto x = [&](double call) { return kLeft + plot_w * call / double(n - 1); };
  auto y = [&](double us) { return kTop + plot_h * (lhi - std::log10(std::max(us, lo))) / (lhi - llo); };

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kLeft << "\" y=\"22\" font-size=\"15\">" << escape(title) << "</text>\n";
  // Axes, with a tick per power of ten (and 2x, 5x) in the range.
  svg << "<line x1=\"" << kLeft << "\" y1=\"" << kTop + plot_h << "\" x2=\"" << kLeft + plot_w << "\" y2=\""
      << kTop + plot_h << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << kTop + plot_h
      << "\" stroke=\"black\"/>\n";
  for (int e = int(std::floor(llo)); e <= int(std::ceil(lhi)); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (std::log10(v) < llo || std::log10(v) > lhi) continue;
      svg << "<line x1=\"" << kLeft - 4 << "\" y1=\"" << number(y(v)) << "\" x2=\"" << kLeft + plot_w << "\" y2=\""
          << number(y(v)) << "\" stroke=\"#ddd\"/>\n"
          << "<text x=\"" << kLeft - 8 << "\" y=\"" << number(y(v) + 4) << "\" text-anchor=\"end\">" << v
          << "</text>\n";
    }
  for (int i = 0; i <= 10; ++i) {
    const double call = double(n - 1) * i / 10;
    svg << "<text x=\"" << number(x(call)) << "\" y=\"" << kTop + plot_h + 18 << "\" text-anchor=\"middle\">"
        << int64_t(call) << "</text>\n";
  }
  svg << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 10 << "\" text-anchor=\"middle\">call</text>\n"
      << "<text x=\"16\" y=\"" << kTop + plot_h / 2 << "\" transform=\"rotate(-90 16 " << kTop + plot_h / 2
      << ")\" text-anchor=\"middle\">latency (us, log scale)</text>\n";
  // The kernel changes, then the calls on top.
  for (size_t i = 0; i < changes.size(); ++i) {
    const double cx = x(double(changes[i].call));
    svg << "<line x1=\"" << number(cx) << "\" y1=\"" << kTop << "\" x2=\"" << number(cx) << "\" y2=\""
        << kTop + plot_h << "\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/>\n"
        << "<text x=\"" << number(cx + 3) << "\" y=\"" << kTop + 12 + 13 * double(i % 4)
        << "\" fill=\"#c33\" font-size=\"10\">" << escape(changes[i].label) << "</text>\n";
  }
  svg << "<g fill=\"#1f5fa8\">\n";
  for (size_t i = 0; i < per_call_us.size(); ++i)
    svg << "<circle cx=\"" << number(x(double(i))) << "\" cy=\"" << number(y(per_call_us[i])) << "\" r=\"1.3\"/>\n";
  svg << "</g>\n</svg>\n";
  return svg.str();
}

}  // namespace livetune::cli
