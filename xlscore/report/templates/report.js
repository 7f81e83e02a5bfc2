"use strict";
(function () {
  var data = JSON.parse(document.getElementById("xlscore-data").textContent);
  var names = data.engines, colours = data.colours, PAGE = 50;
  // a segment: [source, pairs, source word spans [[start, end], ...]]; a pair: [text, score,
  //          estimate, f1, precision, recall, foreign, flags, anchors (flat source and
  //          translation word indices), and as word indices: unmatched source words, foreign
  //          words, numbers missing (source), numbers added (translation); predicted error
  //          spans [[start, end, severity, probability], ...] (offsets into text, sorted, not
  //          overlapping), adequacy part of the estimate or null, cross-lingual similarity
  //          blended into the score or null, the text's word spans, whether a number is on
  //          one side only, the checks' findings [[check, message, costs points, why it costs
  //          nothing], ...], what
  //          the rules took off the score (check cost) or null, what the engines' agreement
  //          moved it by (consensus shift) or null, the agreement (0..1) or null, the rest
  //          of score - estimate (foreign text, the floor) or null]
  var segs = data.segments.map(function (row, k) {
    var pairs = row[1], scores = pairs.map(function (p) { return p[1]; });
    var order = pairs.map(function (p, i) { return i; }).sort(function (a, b) {
      var fa = pairs[a][7].length > 0, fb = pairs[b][7].length > 0;
      if (fa !== fb) { return fa ? 1 : -1; }
      if (scores[a] !== scores[b]) { return scores[b] - scores[a]; }
      return a - b;
    });
    var flagged = pairs.some(function (p) { return p[7].length || p[17]; });
    var major = pairs.some(function (p) {
      return (p[13] || []).some(function (sp) { return sp[2] === "major"; });
    });
    return {id: k + 1, source: row[0], words: row[2], pairs: pairs, best: order[0], flagged: flagged, major: major,
            gap: Math.max.apply(null, scores) - Math.min.apply(null, scores), hay: null};
  });
  var state = {sort: 0, desc: false, page: 0, rows: segs, open: null};
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function fmt(x) { return x === null ? "—" : (x >= 0 ? "+" : "") + x.toFixed(4); }
  // the text cut at the predicted error spans: [{a, b, err: span or null}] covering 0..length
  function cut(text, spans) {
    var out = [], at = 0;
    (spans || []).forEach(function (sp) {
      var a = Math.max(at, sp[0]), b = Math.min(text.length, sp[1]);
      if (a >= b) { return; }
      if (a > at) { out.push({a: at, b: a, err: null}); }
      out.push({a: a, b: b, err: sp}); at = b;
    });
    if (at < text.length) { out.push({a: at, b: text.length, err: null}); }
    return out;
  }
  function errMark(sp, text) {
    var m = el("mark", "err " + sp[2], text);
    m.title = "predicted " + sp[2] + " error, probability " + sp[3].toFixed(2);
    return m;
  }
  // text with its predicted error spans as <mark> elements (slices written as text)
  function marked(parent, text, spans) {
    cut(text, spans).forEach(function (c) {
      var t = text.slice(c.a, c.b);
      parent.appendChild(c.err ? errMark(c.err, t) : document.createTextNode(t));
    });
  }
  // the words of a text from their spans (the scorer's segmentation, sent with the data)
  function words(text, spans) {
    return spans.map(function (sp) { return {text: text.slice(sp[0], sp[1]), start: sp[0], end: sp[1]}; });
  }

  // the checks' findings as a list: "check: message (costs points)", or, for one that
  // costs nothing, why (its rule's measured false alarms) when known
  function findingList(found) {
    var ul = el("ul", "findings");
    found.forEach(function (f) {
      var li = el("li", f[2] ? "costs" : "free");
      li.appendChild(el("span", "check", f[0] + ": "));
      li.appendChild(document.createTextNode(f[1]));
      li.appendChild(el("span", "cost", f[2] ? " (costs points)" : f[3] ? " (" + f[3] + ")" :
                        " (costs nothing)"));
      ul.appendChild(li);
    });
    return ul;
  }

  // the terms that add up to the score (each rounded to 4 decimals): [[label, value,
  // title], ...]; the foreign-text term is what is left of score - estimate once the checks
  // and the consensus are taken out (the estimate pulled towards the floor by foreign words,
  // or the similarity term of an estimator that blends it in), shown where it is not 0
  function terms(p) {
    var start = p[2] !== null ? ["estimate", p[2]] : p[3] !== null ? ["F1", p[3]] : null;
    if (start === null || p[22] === null || p[22] === undefined) { return null; }
    var cost = p[19] === null ? null : p[19], shift = p[20] === null ? null : p[20];
    var rest = p[22];
    var out = [[start[0], start[1], start[0] === "estimate" ?
      "the quality estimator's prediction, before the rules and the consensus" :
      "the paper's F1 (no estimator)"]];
    if (rest !== 0 || p[6] > 0) {
      out.push(["foreign text", rest, "the pull of words that are not Russian towards the lowest " +
                "score (or, for an estimator that blends in the similarity, that term)"]);
    }
    if (cost !== null) {
      out.push(["checks", -cost, "what the rules took: each number or negation finding that " +
                "costs points, and the pull of degenerate (repeated or looping) output"]);
    }
    if (shift !== null) {
      out.push(["consensus", shift, "how much the engines' agreement moved the score (this " +
                "translation's agreement with the others: " + p[21].toFixed(2) + ")"]);
    }
    return out;
  }
  function signed(x) { return (x < 0 ? "−" : "+") + Math.abs(x).toFixed(4); }

  // ------------------------------------------------------------------ table
  var columns = [{label: "#", key: function (s) { return s.id; }},
                 {label: "source", key: function (s) { return s.source.toLowerCase(); }}];
  names.forEach(function (n, i) {
    columns.push({label: n, engine: i, key: function (s) { return s.pairs[i][1]; }});
  });
  columns.push({label: "gap", key: function (s) { return s.gap; }});
  var widths = ["40px", names.length > 3 ? "20%" : "26%"];
  columns.gapWidth = "64px";

  function header() {
    var tr = $("segment-head");
    tr.textContent = "";
    columns.forEach(function (c, k) {
      var th = el("th", k === state.sort ? (state.desc ? "sorted-desc" : "sorted-asc") : "", c.label);
      if (widths[k]) { th.style.width = widths[k]; }
      if (k === columns.length - 1) { th.style.width = columns.gapWidth; }
      if (c.engine !== undefined) {
        var sw = el("span", "swatch"); sw.style.background = colours[c.engine]; th.prepend(sw);
      }
      th.title = "sort by " + c.label;
      th.addEventListener("click", function () {
        state.desc = state.sort === k ? !state.desc : k >= 2;
        state.sort = k; state.page = 0; apply();
      });
      tr.appendChild(th);
    });
  }

  function apply() {
    var q = $("search").value.trim().toLowerCase();
    var gap = parseFloat($("gap").value), onlyGap = $("disagree").checked, onlyFlag = $("flagged").checked;
    var onlyErr = $("predicted").checked;
    state.rows = segs.filter(function (s) {
      if (onlyGap && !(s.gap >= gap)) { return false; }
      if (onlyFlag && !s.flagged) { return false; }
      if (onlyErr && !s.major) { return false; }
      if (q) {
        if (s.hay === null) {
          s.hay = (s.source + "\n" + s.pairs.map(function (p) { return p[0]; }).join("\n")).toLowerCase();
        }
        if (s.hay.indexOf(q) < 0) { return false; }
      }
      return true;
    });
    var key = columns[state.sort].key, sign = state.desc ? -1 : 1;
    state.rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      return x < y ? -sign : x > y ? sign : a.id - b.id;
    });
    var pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    header();
    render(pages);
  }

  function render(pages) {
    var body = $("segment-rows");
    body.textContent = "";
    state.rows.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (s) {
      var tr = el("tr", s.id === state.open ? "open" : "");
      tr.dataset.segment = s.id;
      tr.appendChild(el("td", "num", s.id));
      tr.appendChild(el("td", "source", s.source));
      s.pairs.forEach(function (p, i) {
        var td = el("td", "cell" + (i === s.best ? " best" : "") + (p[7].length ? " flag" : ""));
        var head = td.appendChild(el("div", "score", fmt(p[1])));
        if (p[7].length) { head.appendChild(el("span", "flags", " " + p[7].join(", "))); }
        marked(td.appendChild(el("div", "text")), p[0], p[13]);
        if (p[18] && p[18].length) { td.appendChild(findingList(p[18])); }
        tr.appendChild(td);
      });
      tr.appendChild(el("td", "num", s.gap.toFixed(4)));
      tr.addEventListener("click", function () { show(s); });
      body.appendChild(tr);
    });
    $("count").textContent = state.rows.length + " of " + segs.length + " segments";
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
  }

  // ------------------------------------------------------------ segment view
  // a line of words (span.w, classed by marks(word, index)); predicted error spans, when
  // given, wrap their words in <mark> (a word cut by a span's edge becomes two parts, the
  // first one standing for the word)
  function wordLine(cls, text, wordSpans, marks, errs) {
    var p = el("p", cls), spans = [], ws = words(text, wordSpans);
    var classes = ws.map(function (w, i) { return marks(w.text, i); });
    cut(text, errs).forEach(function (c) {
      var box = c.err ? p.appendChild(errMark(c.err)) : p, at = c.a;
      ws.forEach(function (w, i) {
        var a = Math.max(w.start, c.a), b = Math.min(w.end, c.b);
        if (a >= b) { return; }
        if (a > at) { box.appendChild(document.createTextNode(text.slice(at, a))); }
        var span = el("span", "w " + classes[i], text.slice(a, b));
        box.appendChild(span); at = b;
        if (!spans[i]) { spans[i] = span; }
      });
      if (at < c.b) { box.appendChild(document.createTextNode(text.slice(at, c.b))); }
    });
    return {p: p, spans: spans};
  }

  function setOf(list) {
    var c = {};
    list.forEach(function (i) { c[i] = true; });
    return c;
  }

  function pairView(s, i) {
    var p = s.pairs[i], box = el("div", "pair");
    var h = el("h4", "", names[i] + (i === s.best ? "  ★ best" : ""));
    var sw = el("span", "swatch"); sw.style.background = colours[i]; h.prepend(sw);
    box.appendChild(h);
    var sum = terms(p);
    if (sum !== null) {
      var line = el("p", "terms");
      sum.forEach(function (t, k) {
        var term = el("span", "term");
        term.dataset.term = t[0];
        term.title = t[2];
        var minus = t[1] < 0 || (t[1] === 0 && t[0] === "checks");
        if (k) { term.appendChild(el("span", "sign", minus ? " − " : " + ")); }
        term.appendChild(document.createTextNode(t[0] + " "));
        term.appendChild(el("span", "value", k ? Math.abs(t[1]).toFixed(4) : signed(t[1])));
        line.appendChild(term);
      });
      var total = el("span", "term total");
      total.appendChild(document.createTextNode(" = score "));
      total.appendChild(el("span", "value", signed(p[1])));
      line.appendChild(total);
      box.appendChild(line);
    }
    var parts = el("div", "parts");
    var items = [];
    if (p[2] !== null && p[14] !== null && p[14] !== undefined) {
      items.push(["estimate's sentence head", fmt(Math.round(1e4 * (p[2] - p[14])) / 1e4)],
                 ["adequacy (word and meaning heads)", fmt(p[14])]);
    }
    if (p[15] !== null && p[15] !== undefined) { items.push(["similarity", fmt(p[15])]); }
    if (p[3] !== null) {
      items.push(["paper's F1", fmt(p[3])], ["P", fmt(p[4])], ["R", fmt(p[5])],
                 ["anchors", p[8].length / 2]);
    }
    items.push(["foreign words", Math.round(100 * p[6]) + "%"]);
    if (p[7].length) { items.push(["flags", p[7].join(", ")]); }
    items.forEach(function (it, k) {
      if (k) { parts.appendChild(document.createTextNode(" · ")); }
      parts.appendChild(el("b", "", it[0])); parts.appendChild(document.createTextNode(" " + it[1]));
    });
    box.appendChild(parts);
    if (p[18] && p[18].length) { box.appendChild(findingList(p[18])); }
    var anchoredS = {}, anchoredT = {};
    for (var k = 0; k < p[8].length; k += 2) { anchoredS[p[8][k]] = true; anchoredT[p[8][k + 1]] = true; }
    var unmatched = setOf(p[9]), foreign = setOf(p[10]), missing = setOf(p[11]), added = setOf(p[12]);
    var align = el("div", p[8].length ? "align" : "align bare");
    var src = wordLine("src", s.source, s.words, function (w, j) {
      if (anchoredS[j]) { return "anchor"; }
      if (missing[j]) { return "number-off"; }
      if (unmatched[j]) { return "omitted"; }
      return "";
    });
    var mt = wordLine("mt", p[0], p[16], function (w, j) {
      var cls = anchoredT[j] ? "anchor" : "";
      if (foreign[j]) { cls += " foreign"; }
      if (added[j]) { cls += " number-off"; }
      return cls;
    }, p[13]);
    align.appendChild(src.p); align.appendChild(mt.p);
    box.appendChild(align);
    if (p[13] && p[13].length) {
      var errs = el("p", "errors");
      errs.appendChild(el("b", "", "predicted errors: "));
      p[13].forEach(function (sp, k) {
        if (k) { errs.appendChild(document.createTextNode(" · ")); }
        errs.appendChild(el("q", "err " + sp[2], p[0].slice(sp[0], sp[1])));
        errs.appendChild(document.createTextNode(" " + sp[2] + ", " + sp[3].toFixed(2)));
      });
      box.appendChild(errs);
    }
    box.links = {align: align, src: src.spans, mt: mt.spans, anchors: p[8], colour: colours[i]};
    return box;
  }

  function drawLinks(links) {
    var NS = "http://www.w3.org/2000/svg", old = links.align.querySelector("svg.links");
    if (old) { old.remove(); }
    var svg = document.createElementNS(NS, "svg"), base = links.align.getBoundingClientRect();
    svg.setAttribute("class", "links");
    svg.setAttribute("width", base.width); svg.setAttribute("height", base.height);
    for (var k = 0; k < links.anchors.length; k += 2) {
      var a = links.src[links.anchors[k]], b = links.mt[links.anchors[k + 1]];
      if (!a || !b) { continue; }
      var ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
      var line = document.createElementNS(NS, "line");
      line.setAttribute("x1", ra.left + ra.width / 2 - base.left); line.setAttribute("y1", ra.bottom - base.top);
      line.setAttribute("x2", rb.left + rb.width / 2 - base.left); line.setAttribute("y2", rb.top - base.top);
      line.setAttribute("stroke", links.colour); line.setAttribute("stroke-opacity", "0.6");
      line.setAttribute("stroke-width", "1.5");
      svg.appendChild(line);
    }
    links.align.appendChild(svg);
  }

  function show(s) {
    state.open = s.id;
    var view = $("segment-view");
    view.textContent = "";
    view.hidden = false;
    view.appendChild(el("h3", "", "Segment " + s.id));
    var keys = el("p", "keys");
    var anchored = s.pairs.some(function (p) { return p[8].length; });
    [["anchor", "anchor word (paired across the languages by the dictionary)"],
     ["omitted", "source content word with no counterpart (possible omission)"],
     ["foreign", "not Russian (untranslated or another language)"],
     ["number-off", "number on one side only"]].forEach(function (kv) {
      if (kv[0] !== "anchor" || anchored) { keys.appendChild(el("span", "w " + kv[0], kv[1])); }
    });
    if (s.pairs.every(function (p) { return p[3] === null; })) {
      keys.appendChild(el("span", "", "(no anchor lines: the paper's columns were not computed; " +
                          "xlscore report --fields all adds them)"));
    }
    if (s.pairs.some(function (p) { return p[13] && p[13].length; })) {
      keys.appendChild(el("span", "err major", "predicted major error"));
      keys.appendChild(el("span", "err minor", "predicted minor error"));
      keys.appendChild(el("span", "", "(the estimator's word head: places to look, not verdicts)"));
    }
    view.appendChild(keys);
    var boxes = s.pairs.map(function (p, i) { return pairView(s, i); });
    boxes.forEach(function (b) { view.appendChild(b); });
    boxes.forEach(function (b) { drawLinks(b.links); });
    view.boxes = boxes;
    Array.prototype.forEach.call($("segment-rows").children, function (tr) {
      tr.className = Number(tr.dataset.segment) === s.id ? "open" : "";
    });
    view.scrollIntoView({block: "nearest"});
  }

  // ------------------------------------------------------------------ wiring
  var gaps = segs.map(function (s) { return s.gap; }).sort(function (a, b) { return a - b; });
  $("gap").value = (gaps[Math.floor(0.75 * (gaps.length - 1))] || 0).toFixed(2);
  var timer = null;
  $("search").addEventListener("input", function () {
    clearTimeout(timer); timer = setTimeout(function () { state.page = 0; apply(); }, 150);
  });
  ["disagree", "flagged", "predicted", "gap"].forEach(function (id) {
    $(id).addEventListener("change", function () { state.page = 0; apply(); });
  });
  $("prev").addEventListener("click", function () { state.page--; apply(); });
  $("next").addEventListener("click", function () { state.page++; apply(); });
  window.addEventListener("resize", function () {
    var view = $("segment-view");
    if (view.boxes) { view.boxes.forEach(function (b) { drawLinks(b.links); }); }
  });
  apply();
  window.xlscoreReport = {segments: segs.length, rendered: performance.now()};
}());
