// The metalogic report page: reads the JSON embedded in the page and builds every view with DOM
// calls. Text from the facts (agent names, replies) only ever goes into textContent or attribute
// values, never into innerHTML, so it cannot inject markup. No network access of any kind.
"use strict";
const D = JSON.parse(document.getElementById("report-data").textContent);
const SVGNS = "http://www.w3.org/2000/svg";
const META = D.meta, AGENTS = META.agents;

function put(e, attrs, kids) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") e.textContent = String(v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.appendChild(typeof kid === "object" ? kid : document.createTextNode(String(kid)));
  }
  return e;
}
const h = (tag, attrs, ...kids) => put(document.createElement(tag), attrs, kids);
const s = (tag, attrs, ...kids) => put(document.createElementNS(SVGNS, tag), attrs, kids);
const tip = text => s("title", {text});
const pct = x => (x === null || x === undefined) ? "\u2013" : (100 * x).toFixed(1) + "%";
const num = (x, d = 2) => (x === null || x === undefined) ? "\u2013" : x.toFixed(d);
const capName = sc => META.capabilities[sc] || sc;

// A grid of coloured cells, drawn from its description (app/charts.py builds every chart's).
function grid(p) {
  const cw = 100, ch = 34, top = 56;
  const left = 16 + 7.2 * Math.max(6, ...p.rows.map(r => r.length));
  const svg = s("svg", {id: p.id, width: left + cw * p.cols.length + 4, height: top + ch * p.rows.length + 4,
                        role: "img", class: "grid"}, tip(p.title));
  p.cols.forEach((c, j) => {
    const x = left + j * cw + cw / 2;
    svg.appendChild(s("text", {x, y: 18, "text-anchor": "middle", "font-weight": 600, "font-size": 13, text: c.label}));
    const words = c.sub ? c.sub.split(" ") : [], half = Math.ceil(words.length / 2);
    [words.slice(0, half).join(" "), words.slice(half).join(" ")].forEach((line, k) =>
      svg.appendChild(s("text", {x, y: 32 + 11 * k, "text-anchor": "middle", "font-size": 10, fill: "#616e7c", text: line})));
  });
  p.rows.forEach((r, i) => {
    const y = top + i * ch;
    svg.appendChild(s("text", {x: left - 8, y: y + ch / 2 + 4, "text-anchor": "end", "font-size": 13, text: r}));
    p.cols.forEach((_, j) => {
      const v = p.cells[i][j], x = left + j * cw;
      svg.appendChild(s("g", {class: v ? "cell" : "cell empty"},
        s("rect", {x: x + 1, y: y + 1, width: cw - 2, height: ch - 2, rx: 3, fill: v ? v.fill : "#f0f2f5"}),
        s("text", {x: x + cw / 2, y: y + ch / 2 + 4, "text-anchor": "middle", "font-size": 12,
                   fill: v ? v.ink : "#9aa5b1", text: v ? v.text : "\u00b7"}),
        tip(v ? v.tip : p.empty)));
    });
  });
  return svg;
}

function radar(p) {
  const size = 270, R = 88, cx = size / 2, cy = size / 2 + 8, n = p.axes.length;
  const ang = i => -Math.PI / 2 + 2 * Math.PI * i / Math.max(n, 1);
  const pt = (i, v) => [cx + R * v * Math.cos(ang(i)), cy + R * v * Math.sin(ang(i))];
  const svg = s("svg", {width: size, height: size + 10, class: "radar", "data-title": p.title, role: "img"},
    s("text", {x: cx, y: 16, "text-anchor": "middle", "font-weight": 600, "font-size": 13, text: p.title}));
  for (const lvl of [0.25, 0.5, 0.75, 1]) {
    svg.appendChild(s("polygon", {points: p.axes.map((_, i) => pt(i, lvl).join(",")).join(" "),
                                  fill: "none", stroke: "#d9e2ec"}));
  }
  p.axes.forEach((label, i) => {
    const [x, y] = pt(i, 1), [lx, ly] = pt(i, 1.2);
    svg.appendChild(s("line", {x1: cx, y1: cy, x2: x, y2: y, stroke: "#d9e2ec"}));
    svg.appendChild(s("text", {x: lx, y: ly + 4, "text-anchor": "middle", "font-size": 11, text: label}));
  });
  svg.appendChild(s("polygon", {class: "score-area", points: p.points.map(q => pt(q.axis, q.value).join(",")).join(" "),
                                fill: "rgba(37,99,235,0.22)", stroke: "#2563eb", "stroke-width": 2}));
  for (const q of p.points) {
    const [x, y] = pt(q.axis, q.value);
    svg.appendChild(s("circle", {cx: x, cy: y, r: 3.5, fill: "#2563eb"}, tip(q.tip)));
  }
  return h("div", {class: "radar-box"}, svg);
}

function scatter(p) {
  // R leaves room on the right for the labels of points at x = 1
  const W = 440, H = 260, L = 46, B = 36, P = 12, R = 130;
  const x = v => L + (W - L - R) * v, y = v => H - B - (H - B - P) * v;
  const svg = s("svg", {id: p.id, width: W, height: H, role: "img"}, tip(p.title),
    s("rect", {x: L, y: P, width: W - L - R, height: H - B - P, fill: "#fafbfc", stroke: "#d9e2ec"}),
    p.diagonal ? s("line", {x1: x(0), y1: y(0), x2: x(1), y2: y(1), stroke: "#d9e2ec", "stroke-dasharray": "4 3"}) : null,
    s("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12, text: p.x_label}),
    s("text", {x: 12, y: (H - B) / 2, "font-size": 12, "text-anchor": "middle",
               transform: `rotate(-90 12 ${(H - B) / 2})`, text: p.y_label}));
  for (const v of [0, 0.5, 1]) {
    svg.appendChild(s("text", {x: x(v), y: H - B + 14, "text-anchor": "middle", "font-size": 10, text: v}));
    svg.appendChild(s("text", {x: L - 6, y: y(v) + 3, "text-anchor": "end", "font-size": 10, text: v}));
  }
  for (const q of p.points) {
    svg.appendChild(s("circle", {cx: x(q.x), cy: y(q.y), r: 5, fill: "#2563eb", class: "point"}, tip(q.tip)));
    svg.appendChild(s("text", {x: x(q.x) + 7, y: y(q.y) - 6, "font-size": 11, text: q.label}));
  }
  return svg;
}

const DRAW = {grid, radar, scatter};

// Each chart goes into its slot; a chart whose slot the page lacks gets a section of its own.
function drawChart(c) {
  let slot = document.getElementById(c.slot);
  if (!slot) {
    slot = h("div", {id: c.slot});
    document.getElementById("sec-rules").before(h("section", {id: `sec-${c.slot}`}, h("h2", {text: c.title}),
      c.hint ? h("p", {class: "hint", text: c.hint}) : null, slot));
    document.querySelector("nav").appendChild(h("a", {href: `#sec-${c.slot}`, text: c.name.replace(/_/g, " ")}));
  }
  const body = h("div", {class: "chart", "data-chart": c.name});
  const show = key => body.replaceChildren(...c.views[key].map(p => DRAW[p.kind](p)));
  const keys = Object.keys(c.views).filter(k => k !== "");
  if (c.picker && keys.length) {
    const pick = h("select", {class: "chart-pick", onchange: e => show(e.target.value)},
      h("option", {value: "", text: "all"}), keys.map(k => h("option", {value: k, text: k})));
    slot.appendChild(h("label", {class: "hint"}, `${c.picker} `, pick));
  }
  slot.appendChild(body);
  show("");
}

function table(id, header, rows, numeric) {
  return h("table", {id},
    h("thead", {}, h("tr", {}, header.map((c, j) => h("th", {class: numeric.includes(j) ? "num" : null, text: c})))),
    h("tbody", {}, rows.map(r => h("tr", {class: r.cls || null},
      r.cells.map((c, j) => h("td", {class: numeric.includes(j) ? "num" : null}, c))))));
}

function errorRates() {
  const worst = Math.max(0.0001, ...D.error_rates.map(r => r.error_rate || 0));
  return table("error-rates-table",
    ["agent", "test cases", "violations", "error rate", "", "trajectories", "errors / trajectory", "objects", "errors / object"],
    D.error_rates.map(r => ({cells: [r.agent, r.cases, r.violations, pct(r.error_rate),
      h("span", {class: "bar", style: `width:${Math.round(80 * (r.error_rate || 0) / worst)}px`}),
      r.trajectories, num(r.errors_per_trajectory), r.objects, num(r.errors_per_object)]})),
    [1, 2, 3, 5, 6, 7, 8]);
}

function accuracy() {
  if (!D.accuracy.length) return h("p", {class: "hint", text: "No ground truth in this run: accuracy needs gt_* facts."});
  const rows = D.accuracy.map(r => ({cls: r.sc === "all" ? "total" : null,
    cells: [r.agent, r.sc === "all" ? "all" : `${r.sc} ${capName(r.sc)}`, r.with_truth, pct(r.accuracy),
            r.tested, pct(r.tested_accuracy), r.score === null || r.score === undefined ? "\u2013" : pct(r.score),
            pct(r.consistency), r.wrong, r.flagged, r.consistent_but_wrong, pct(r.consistent_but_wrong_share),
            r.untested_wrong]}));
  const tbl = table("accuracy-table", ["agent", "capability", "answers with truth", "accuracy", "tested",
    "true accuracy (tested)", "estimated (score)", "consistency", "wrong", "flagged by an MR", "consistent but wrong",
    "share", "of which untested"], rows, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  return tbl;
}

function frameFigure(f) {
  const img = D.images[f.key];
  if (!img) return null;
  const sw = Math.max(2, img.w / 160), svg = s("svg", {viewBox: `0 0 ${img.w} ${img.h}`, class: "frame"});
  if (img.src) svg.appendChild(s("image", {href: img.src, x: 0, y: 0, width: img.w, height: img.h, preserveAspectRatio: "none"}));
  else svg.appendChild(s("text", {x: img.w / 2, y: img.h / 2, "text-anchor": "middle", "font-size": img.h / 14,
                                  fill: "#616e7c", text: "frame not available"}));
  const boxes = img.boxes.slice().sort((a, b) => f.objects.includes(a.o) - f.objects.includes(b.o));
  for (const b of boxes) {
    const [x1, y1, x2, y2] = b.box, asked = f.objects.includes(b.o);
    const name = String(b.o).startsWith(b.cls) ? String(b.o) : `${b.cls} ${b.o}`;
    svg.appendChild(s("g", {class: asked ? "box asked" : "box"},
      s("rect", {x: x1, y: y1, width: x2 - x1, height: y2 - y1, fill: "none",
                 stroke: asked ? "#f59e0b" : "#38bdf8", "stroke-width": asked ? 1.6 * sw : sw,
                 "stroke-dasharray": asked ? null : `${3 * sw} ${2 * sw}`}),
      s("text", {x: x1, y: Math.max(img.h / 16, y1 - sw), "font-size": img.h / 16, "font-weight": 600,
                 fill: asked ? "#f59e0b" : "#38bdf8", stroke: "#000", "stroke-width": sw, "paint-order": "stroke",
                 text: name}),
      tip(`${name}: box ${b.box.join(", ")}`)));
  }
  return h("figure", {}, svg, h("figcaption", {text: `${f.traj}, state ${f.state}` + (img.note ? ` \u2013 ${img.note}` : "")}));
}

// A joint-realisability violation (MR18), one figure per axis that no placement fits: the objects
// where the truthful answers put them (in the order named, where the truth is missing), twice: on
// the upper line with the truthful relations, on the lower with the agent's. Each arc joins the two
// objects of a relation, with a dot on the one said to lie beyond (right of, farther, above); level
// is dashed, without a dot; an agent's arc the truth contradicts is red.
function placementFigure(p) {
  const xs = p.objects.map(o => o.x), lo = Math.min(...xs), span = Math.max(1, Math.max(...xs) - lo);
  const W = 420, pad = 40, top = 74, bottom = 134, H = 208, at = {};
  p.objects.forEach(o => { at[o.o] = pad + (W - 2 * pad) * (o.x - lo) / span; });
  const svg = s("svg", {viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "placement", "data-axis": p.axis,
                        role: "img"},
    tip(`${p.axis}: objects placed by the truthful answers; a dot marks the object said to lie ${p.beyond} the other`),
    s("text", {x: 6, y: 14, "font-size": 11, fill: "#616e7c", text: p.truth ? "truthful answers" : "(no truth)"}),
    s("text", {x: 6, y: H - 6, "font-size": 11, fill: "#616e7c", text: "the agent's answers"}),
    s("text", {x: W - 6, y: 14, "text-anchor": "end", "font-size": 11, fill: "#616e7c",
               text: `${p.axis}: \u2192 ${p.beyond}`}));
  for (const y of [top, bottom]) svg.appendChild(s("line", {x1: pad / 2, y1: y, x2: W - pad / 2, y2: y, stroke: "#9aa5b1"}));
  const arrow = (u, v, y, up, colour, dashed, cls, label) => {
    const [x1, x2] = [at[u], at[v]], bend = (up ? -1 : 1) * Math.min(28, 12 + 0.2 * Math.abs(x2 - x1));
    svg.appendChild(s("g", {class: cls},
      s("path", {d: `M ${x1} ${y} Q ${(x1 + x2) / 2} ${y + 2 * bend} ${x2} ${y}`, fill: "none", stroke: colour,
                 "stroke-width": 1.6, "stroke-dasharray": dashed ? "4 3" : null}),
      dashed ? null : s("circle", {cx: x1, cy: y, r: 3.5, fill: colour}), tip(label)));
  };
  for (const r of p.relations) {
    if (p.truth && r.true_sign !== null && r.true_sign !== undefined)
      arrow(r.true_sign < 0 ? r.v : r.u, r.true_sign < 0 ? r.u : r.v, top, true, "#1a7f45", r.true_sign === 0,
            "rel truthful", `${r.q}: truth ${r.truth}`);
    arrow(r.u, r.v, bottom, false, r.against ? "#c81e1e" : "#616e7c", r.kind === "level",
          `rel answered${r.against ? " against" : ""}`,
          `${r.q}: answered ${r.answer}` + (r.against ? ` (the truth says ${r.truth})` : ""));
  }
  for (const o of p.objects)
    svg.appendChild(s("g", {class: "obj"},
      s("line", {x1: at[o.o], y1: top, x2: at[o.o], y2: bottom, stroke: "#cbd2d9", "stroke-dasharray": "2 3"}),
      s("circle", {cx: at[o.o], cy: top, r: 2.5, fill: "#2563eb"}), s("circle", {cx: at[o.o], cy: bottom, r: 2.5, fill: "#2563eb"}),
      s("text", {x: at[o.o], y: (top + bottom) / 2 + 4, "text-anchor": "middle", "font-size": 12, "font-weight": 600,
                 fill: "#1f2933", stroke: "#fff", "stroke-width": 3, "paint-order": "stroke", text: o.o})));
  const note = (p.truth ? `no placement on ${p.axis} fits the agent's relations below; red: the truth says otherwise`
                        : "the truth is missing for some relation: objects in the order named") +
               `; a dot marks the object said to lie ${p.beyond} the other`;
  return h("figure", {}, svg, h("figcaption", {class: "wide", text: note}));
}

function violationCard(v) {
  const qrows = v.questions.map(q => {
    const known = q.truth !== null && q.truth !== undefined;
    return h("tr", {},
      h("td", {}, h("code", {text: q.q})), h("td", {}, h("code", {text: q.content})), h("td", {text: q.form}),
      h("td", {class: known ? (q.answer === q.truth ? "right" : "wrong") : null}, h("code", {text: q.answer}),
        q.blame ? h("span", {class: `tag blamed ${q.blame}`, text: `blamed (${q.blame})`}) : null),
      h("td", {}, known ? h("code", {text: q.truth}) : "\u2013"), h("td", {text: q.raw || ""}));
  });
  const frames = v.frames.map(frameFigure).filter(Boolean);
  return h("article", {class: "violation", "data-agent": v.agent, "data-mr": v.mr, "data-sc": v.sc},
    h("header", {}, h("b", {text: v.agent}), h("code", {text: v.case}),
      h("span", {class: "tag", text: `${v.sc.toUpperCase()} ${capName(v.sc)}`}),
      h("span", {class: "tag", text: `${v.mr} ${v.mr_name}`}), h("span", {class: "tag reason", text: v.reason})),
    v.law ? h("div", {class: "law"}, "law: ", h("code", {text: v.law})) : null,
    frames.length ? h("div", {class: "frames"}, frames)
      : h("p", {class: "hint", text: v.thumbs_capped && Object.keys(D.images).length
                                                      ? "frames are shown for the first violations of each agent only"
                                                      : "no frame or tracked box for these questions"}),
    (v.placement || []).length ? h("div", {class: "frames"}, v.placement.map(placementFigure)) : null,
    h("table", {class: "questions"},
      h("thead", {}, h("tr", {}, ["query", "question", "form", "answer", "truth", "reply"].map(c => h("th", {text: c})))),
      h("tbody", {}, qrows)),
    h("details", {}, h("summary", {text: `the ${v.facts.length} facts behind it`}), h("pre", {text: v.facts.join("\n")})));
}

function blamedList() {
  if (!D.blamed.length) return h("p", {class: "hint", text: "No answer is blamed."});
  const pick = h("select", {id: "blamed-agent", onchange: () => draw()},
    [...new Set(D.blamed.map(r => r.agent))].map(a => h("option", {value: a, text: a})));
  const out = h("div", {id: "blamed-list"});
  function draw() {
    const rows = D.blamed.filter(r => r.agent === pick.value).map(r => ({cells: [
      h("code", {text: r.query}), h("code", {text: r.content}), `${r.sc} ${capName(r.sc)}`, h("code", {text: r.answer}),
      r.truth === null ? "\u2013" : h("code", {text: r.truth}), r.blame, r.cases.join(" "),
      h("div", {class: "frames small"}, (r.frames || []).map(frameFigure).filter(Boolean))]}));
    out.replaceChildren(table("blamed-table", ["query", "question", "capability", "answer", "truth", "blame",
      "violated cases", "frames"], rows, []));
  }
  draw();
  return h("div", {}, h("label", {}, "Agent ", pick), out);
}

function browser() {
  const PAGE = 20, state = {page: 0};
  const pickers = {};
  const opts = (name, values) => (pickers[name] = h("select", {id: `vb-${name}`, onchange: () => { state.page = 0; draw(); }},
    h("option", {value: "", text: `all ${name}s`}), values.map(x => h("option", {value: x, text: x}))));
  const uniq = key => [...new Set(D.violations.map(v => v[key]))].sort();
  const search = h("input", {id: "vb-search", type: "search", placeholder: "search queries, answers, case",
                             oninput: () => { state.page = 0; draw(); }});
  const list = h("div", {id: "vb-list"}), count = h("span", {id: "vb-count"});
  const prev = h("button", {id: "vb-prev", text: "\u2190 previous", onclick: () => { state.page--; draw(); }});
  const next = h("button", {id: "vb-next", text: "next \u2192", onclick: () => { state.page++; draw(); }});
  const filters = h("div", {class: "filters"}, opts("agent", AGENTS), opts("sc", uniq("sc")),
    opts("mr", uniq("mr")), opts("reason", uniq("reason")), search);
  function matches(v) {
    for (const k of ["agent", "sc", "mr", "reason"]) {
      const want = pickers[k].value;
      if (want && v[k] !== want) return false;
    }
    const text = search.value.trim().toLowerCase();
    if (!text) return true;
    return [v.case, ...v.questions.flatMap(q => [q.q, q.content, q.answer, q.raw || ""])]
      .some(x => String(x).toLowerCase().includes(text));
  }
  function draw() {
    const hits = D.violations.filter(matches), pages = Math.max(1, Math.ceil(hits.length / PAGE));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const shown = hits.slice(state.page * PAGE, (state.page + 1) * PAGE);
    list.replaceChildren(...shown.map(violationCard));
    count.textContent = hits.length ? `showing ${state.page * PAGE + 1}\u2013${state.page * PAGE + shown.length} of ` +
      `${hits.length} violations (page ${state.page + 1} of ${pages})` : "no violation matches";
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }
  const box = h("div", {}, filters, h("div", {class: "pager"}, prev, next, count), list);
  draw();
  return box;
}

function rulesSection() {
  return h("div", {},
    table("rules-table", ["MR", "name", "capabilities", "law"],
      META.mrs.map(m => ({cells: [m.id, m.name, m.serves.join(", "), h("code", {text: m.law})]})), []),
    table("params-table", ["parameter", "value"],
      Object.entries(META.params).map(([k, v]) => ({cells: [k, String(v)]})), [1]));
}

function main() {
  document.getElementById("meta").textContent =
    `${META.run} \u00b7 engine ${META.engine} \u00b7 ${AGENTS.length} agents \u00b7 ${META.testcases} test cases \u00b7 ` +
    `${META.violations} violations \u00b7 ${META.facts} facts in ${META.files} files \u00b7 metalogic ${META.version} \u00b7 ${META.generated}`;
  document.getElementById("notes").replaceChildren(...META.notes.map(n => h("li", {text: n})));
  if (!D.charts.length) document.getElementById("heatmap").appendChild(h("p", {class: "hint", text: "No test cases in this run."}));
  D.charts.forEach(drawChart);
  document.getElementById("error-rates").appendChild(errorRates());
  document.getElementById("accuracy").appendChild(accuracy());
  document.getElementById("blamed").appendChild(blamedList());
  document.getElementById("browser").appendChild(browser());
  document.getElementById("rules").appendChild(rulesSection());
  document.body.dataset.rendered = "yes";
}
main();
