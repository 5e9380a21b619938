// The stylesheet and script of timeline.html. The script reads the JSON in #profile-data and
// builds the page with DOM and SVG calls: no libraries, no network. When it has drawn
// everything it marks <body data-rendered="ok">; an error anywhere marks data-error and shows
// the message (the CI check opens the page in headless Chromium and looks for both).
#include "timeline_html_page.hpp"

namespace libreyolo::core::profiler {

const char* const kTimelineStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 12px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
.verdict { border-left: 8px solid #888; background: #fff; padding: 12px 16px; box-shadow: 0 1px 3px #0002; }
.verdict .name { font-size: 24px; font-weight: 700; }
.verdict .meaning { color: #555; margin-left: 8px; }
.verdict ul { margin: 6px 0 0; }
.numbers { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 12px; }
.number { background: #fff; padding: 8px 12px; box-shadow: 0 1px 3px #0002; min-width: 130px; }
.number .value { font-size: 18px; font-weight: 600; }
.number .label { color: #666; font-size: 12px; }
table { border-collapse: collapse; background: #fff; box-shadow: 0 1px 3px #0002; }
th, td { padding: 3px 10px; text-align: left; border-bottom: 1px solid #eee; font-size: 13px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.kernel { font-family: monospace; font-size: 12px; max-width: 760px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
svg { background: #fff; box-shadow: 0 1px 3px #0002; display: block; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0; font-size: 12px; }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -2px; background: var(--c); }
.note { color: #666; font-size: 12px; }
pre.error { color: #b00; background: #fee; padding: 8px; }
)CSS";

const char* const kTimelineScript = R"JS(
window.addEventListener('error', function (event) {
  document.body.setAttribute('data-error', String(event.message));
  var box = document.createElement('pre');
  box.className = 'error';
  box.textContent = 'timeline.html could not draw the profile: ' + event.message;
  document.body.insertBefore(box, document.body.firstChild);
});
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('profile-data').textContent);
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var PHASE_COLORS = {
    data_wait: '#e45756', h2d: '#f58518', forward: '#4c78a8', remainder: '#72b7b2', loss: '#54a24b',
    backward: '#b279a2', grad_sync: '#9d755d', optimizer: '#eeca3b', ema: '#ff9da6', other: '#bab0ac'
  };
  var VERDICT_COLORS = {
    'dataloader': '#e45756', 'host / launch': '#f58518', 'compute': '#54a24b', 'memory-pressure': '#b279a2', 'none': '#888888'
  };
  var app = document.getElementById('app');

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svgEl(tag, attrs, parent) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(node);
    return node;
  }
  function tip(node, text) { svgEl('title', {}, node).textContent = text; return node; }
  function fixed(x, digits) { return Number(x).toFixed(digits); }
  function pct(x) { return (100 * x).toFixed(1) + '%'; }
  function phaseName(i) { return data.phases[i]; }
  function add(parent, node) { parent.appendChild(node); return node; }

  // Verdict and levers.
  var m = data.measures;
  add(app, el('h1', {}, 'LibreYOLO training profile'));
  var box = add(app, el('div', { 'class': 'verdict', id: 'verdict' }));
  box.style.borderLeftColor = VERDICT_COLORS[data.verdict.name] || '#888';
  add(box, el('span', { 'class': 'name' }, 'verdict: ' + data.verdict.name));
  if (data.verdict.name !== 'none') add(box, el('span', { 'class': 'meaning' }, data.verdict.meaning));
  add(box, el('div', {}, data.verdict.reason));
  if (data.verdict.levers.length) {
    add(box, el('div', {}, 'levers:'));
    var levers = add(box, el('ul'));
    data.verdict.levers.forEach(function (lever) { add(levers, el('li', {}, lever)); });
  }

  // The numbers that decided it.
  var numbers = add(app, el('div', { 'class': 'numbers' }));
  function number(value, label) {
    var card = add(numbers, el('div', { 'class': 'number' }));
    add(card, el('div', { 'class': 'value' }, value));
    add(card, el('div', { 'class': 'label' }, label));
  }
  number(fixed(m.step_ms, 2) + ' ms', 'step time (unsynchronised)');
  number(m.kernels_recorded ? pct(m.utilization) + (data.verdict.trusted ? '' : ' (?)') : '-',
         m.accelerator ? 'GPU busy / step wall time' : 'GPU busy: no accelerator');
  number(pct(m.data_wait_share), 'waiting for the loader');
  if (m.kernels_recorded) {
    number(fixed(m.kernels_per_step, 0), 'kernels per step');
    number(fixed(m.mean_kernel_us, 1) + ' us', 'mean kernel');
  }
  if (m.device_total_gb > 0) {
    number(fixed(m.reserved_gb, 2) + ' / ' + fixed(m.device_total_gb, 1) + ' GB', 'reserved by the allocator');
    number(String(m.alloc_retries), 'allocator retries');
  }
  number(fixed(m.synchronized_step_ms, 2) + ' ms', 'step time (synchronised half)');
  if (m.communication_ms > 0) {
    number(fixed(m.communication_ms, 2) + ' ms', 'NCCL a step (orange in the GPU lanes)');
    number(pct(m.communication_overlapped_ms / m.communication_ms), 'of it beside other kernels');
  }

  function legend(parent) {
    var row = add(parent, el('div', { 'class': 'legend' }));
    data.phases.forEach(function (name) {
      var item = add(row, el('span', {}, name));
      item.style.setProperty('--c', PHASE_COLORS[name]);
    });
  }

  // Per-step phase bars, every step on the same scale.
  add(app, el('h2', {}, 'Steps: ' + data.steps.length + ' measured after ' + m.skip + ' skipped (' + m.first_half +
      ' unsynchronised for the verdict, then a device sync at every phase boundary for attribution)'));
  legend(app);
  var width = 1200, labelWidth = 170, rowHeight = 18;
  var plot = width - labelWidth - 20;
  var longest = Math.max.apply(null, data.steps.map(function (s) { return s[3]; }).concat([1e-9]));
  var stepSvg = add(app, svgEl('svg', { id: 'steps', width: width, height: data.steps.length * rowHeight + 30 }));
  data.steps.forEach(function (s, row) {
    var y = 6 + row * rowHeight;
    svgEl('text', { x: 6, y: y + 12 }, stepSvg).textContent =
        'step ' + s[0] + (s[1] ? ' synced ' : ' ') + fixed(s[3], 1) + ' ms';
    tip(svgEl('rect', { x: labelWidth, y: y, width: Math.max(1, s[3] / longest * plot), height: rowHeight - 4, fill: '#eee' }, stepSvg),
        'step ' + s[0] + ': ' + fixed(s[3], 3) + ' ms');
    s[4].forEach(function (p) {
      var x = labelWidth + (p[1] - s[2]) / longest * plot;
      tip(svgEl('rect', { x: x, y: y, width: Math.max(0.5, p[2] / longest * plot), height: rowHeight - 4,
                          fill: PHASE_COLORS[phaseName(p[0])] }, stepSvg),
          phaseName(p[0]) + ': ' + fixed(p[2], 3) + ' ms');
    });
  });
  svgEl('text', { x: labelWidth, y: data.steps.length * rowHeight + 24 }, stepSvg).textContent =
      '0 ms';
  svgEl('text', { x: width - 80, y: data.steps.length * rowHeight + 24 }, stepSvg).textContent =
      fixed(longest, 1) + ' ms';

  // The window on one time axis: steps, host phases, then the GPU's kernel lanes.
  var k = data.kernels;
  var firstHalf = data.steps.filter(function (s) { return !s[1]; });
  var shown = k.rows.length ? firstHalf : data.steps;
  var end = 0;
  shown.forEach(function (s) { end = Math.max(end, s[2] + s[3]); });
  k.rows.forEach(function (r) { end = Math.max(end, r[0] + r[1]); });
  var begin = 0;
  k.rows.forEach(function (r) { begin = Math.min(begin, r[0]); });
  var span = Math.max(end - begin, 1e-9);
  add(app, el('h2', {}, k.rows.length ? 'Unsynchronised half: host phases and GPU kernels' : 'Window: host phases'));
  add(app, el('p', { 'class': 'note' }, k.recorded ? (k.merged
      ? k.recorded + ' kernels, drawn as ' + k.rows.length + ' merged busy blocks (more than the page draws one by one; profile_trace.json has every kernel)'
      : k.recorded + ' kernels, copies and memsets, each drawn; hover for names')
      : (m.accelerator ? 'no kernel timeline was recorded' : 'no accelerator: host phases only')));
  var lanes = 1;
  k.rows.forEach(function (r) { lanes = Math.max(lanes, r[2] + 1); });
  var laneHeight = 16, top = 24;
  var height = top + 2 * rowHeight + (k.rows.length ? lanes * laneHeight : 0) + 30;
  var win = add(app, svgEl('svg', { id: 'window', width: width, height: height }));
  function wx(t) { return labelWidth + (t - begin) / span * plot; }
  for (var tick = 0; tick <= 4; ++tick) {
    var t = begin + span * tick / 4;
    svgEl('line', { x1: wx(t), x2: wx(t), y1: 14, y2: height - 20, stroke: '#ddd' }, win);
    svgEl('text', { x: wx(t), y: 11, 'text-anchor': tick === 0 ? 'start' : (tick === 4 ? 'end' : 'middle') }, win)
        .textContent = fixed(t, 1) + ' ms';
  }
  svgEl('text', { x: 6, y: top + 12 }, win).textContent = 'steps';
  svgEl('text', { x: 6, y: top + rowHeight + 12 }, win).textContent = 'host phases';
  shown.forEach(function (s, i) {
    tip(svgEl('rect', { x: wx(s[2]), y: top, width: Math.max(0.5, s[3] / span * plot), height: rowHeight - 4,
                        fill: i % 2 ? '#ccc' : '#999' }, win), 'step ' + s[0] + ': ' + fixed(s[3], 3) + ' ms');
    s[4].forEach(function (p) {
      tip(svgEl('rect', { x: wx(p[1]), y: top + rowHeight, width: Math.max(0.5, p[2] / span * plot), height: rowHeight - 4,
                          fill: PHASE_COLORS[phaseName(p[0])] }, win), phaseName(p[0]) + ': ' + fixed(p[2], 3) + ' ms');
    });
  });
  // NCCL's kernels (a distributed run's communication) in orange: their overlap with the others shows.
  function kernelColour(r) {
    if (r[3] >= 0 && k.names[r[3]].indexOf('nccl') === 0) return '#e07b39';
    return r[3] < 0 ? '#2a5d8f' : (r[2] % 2 ? '#2a5d8f' : '#3b7dc4');
  }
  if (k.rows.length) {
    for (var lane = 0; lane < lanes; ++lane) {
      svgEl('text', { x: 6, y: top + 2 * rowHeight + lane * laneHeight + 11 }, win).textContent = 'GPU lane ' + (lane + 1);
    }
    k.rows.forEach(function (r) {
      var rect = svgEl('rect', { x: wx(r[0]), y: top + 2 * rowHeight + r[2] * laneHeight, width: Math.max(0.5, r[1] / span * plot),
                                 height: laneHeight - 3, fill: kernelColour(r) }, win);
      if (k.rows.length <= 5000) {
        tip(rect, (r[3] < 0 ? (-r[3]) + ' kernels' : k.names[r[3]]) + ': ' + fixed(r[1] * 1000, 1) + ' us');
      }
    });
  }
  legend(app);

  // Tables: phase breakdown, top kernels, configuration and environment.
  function table(title, header, rows, classes) {
    add(app, el('h2', {}, title));
    var t = add(app, el('table'));
    var head = add(t, el('tr'));
    header.forEach(function (h) { add(head, el('th', {}, h)); });
    rows.forEach(function (row) {
      var tr = add(t, el('tr'));
      row.forEach(function (cell, i) { add(tr, el('td', { 'class': (classes && classes[i]) || '' }, cell)); });
    });
    return t;
  }
  table('Phases, mean per step', ['phase', 'synchronised ms', 'share', 'unsynchronised ms'],
        data.breakdown.map(function (p) { return [p[0], fixed(p[1], 3), pct(p[2]), fixed(p[3], 3)]; }),
        ['', 'num', 'num', 'num']);
  if (data.top.length) {
    table('Top kernels by GPU time (' + data.kernel_events + ' events)', ['total ms', 'count', 'mean us', 'name'],
          data.top.map(function (t) { return [fixed(t[2] / 1000, 3), String(t[1]), fixed(t[2] / Math.max(1, t[1]), 2), t[0]]; }),
          ['num', 'num', 'num', 'kernel']);
  }
  table('Run', ['option', 'value'], data.config);
  table('Environment', ['what', 'value'], data.environment);
  document.body.setAttribute('data-rendered', 'ok');
})();
)JS";

}  // namespace libreyolo::core::profiler
