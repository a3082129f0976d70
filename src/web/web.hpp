// The dashboard's static assets (docs/web.md), embedded into the binary at build time and served by
// `predlake serve` under /assets/<name>:
//   uplot.js      uPlot's minified IIFE build (dist/uPlot.iife.min.js of the pinned npm tarball,
//                 cmake/Uplot.cmake), the chart library; defines the global `uPlot`.
//   uplot.css     uPlot's stylesheet (dist/uPlot.min.css).
//   dashboard.js  ours (assets/dashboard.js): draws every figure.pl-chart with uPlot, and small
//                 progressive enhancements; the pages work without it.
//   dashboard.css ours (assets/dashboard.css): the pages' layout and typography.
//
// Thread safety: the assets are immutable static storage; FindAsset may be called from any thread.
#pragma once

#include <string_view>

namespace predlake::web {

struct Asset {
  std::string_view body;          // the file's bytes
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
};

// The asset named `name` (as above, without "/assets/"), or nullptr when there is none.
const Asset* FindAsset(std::string_view name);

}  // namespace predlake::web
