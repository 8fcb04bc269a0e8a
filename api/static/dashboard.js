// The dashboard's pages: each reads /api/v1 and draws with Plotly. No build step.
"use strict";
const autotune = (() => {
  const API = document.body.dataset.api;
  const PARAMS = ["num_workers", "prefetch_factor", "pin_memory", "persistent_workers",
                  "num_streams", "batch_size", "device", "threads"];
  const POLL_MS = 2000;
  const PLOT_CONFIG = { displaylogo: false, responsive: true };

  async function api(path) {
    const response = await fetch(API + path);
    const body = await response.json();
    if (!response.ok) throw new Error(body.detail || response.statusText);
    return body;
  }
  // Every page of a paged listing: the API answers at most 500 items at a time.
  async function all(path) {
    const items = [];
    for (let offset = 0; ; offset += 500) {
      const sep = path.includes("?") ? "&" : "?";
      const page = await api(`${path}${sep}limit=500&offset=${offset}`);
      items.push(...page.items);
      if (items.length >= page.total || page.items.length === 0) return items;
    }
  }
  // Text from a script (reasons, output, names, paths) is shown as it is, never as markup.
  // vis: control characters written out ("\x1b[31m"), as the terminal shows them; esc: that,
  // escaped for innerHTML and for Plotly's text, which decodes numeric entities but not &quot;.
  const vis = (s, lines = false) => String(s ?? "").replace(
    lines ? /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g : /[\x00-\x1f\x7f-\x9f]/g,
    (c) => ({ "\n": "\\n", "\t": "\\t", "\r": "\\r" })[c]
      ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  const esc = (s, lines = false) => vis(s, lines).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" })[c]);
  // Long text cut in the middle, as the terminal cuts it: its start says what failed, its
  // end where ("(in DataLoader worker process 0)"). The whole is on the trial's page.
  const clip = (s, n) => {
    const t = String(s ?? ""), tail = Math.min(60, Math.floor(n / 3));
    return t.length > n ? `${t.slice(0, n - tail)} … ${t.slice(-tail)}` : t;
  };
  // A word of a command to copy, quoted as Python's shlex.quote (and the CLI) quotes it.
  const shq = (w) => (/^[\w@%+=:,./-]+$/.test(String(w)) ? String(w)
    : `'${String(w).replace(/'/g, "'\"'\"'")}'`);
  // Plotly draws a hover line as one line of SVG text, however long: break it every n characters.
  const wrapped = (s, n) => (String(s).match(new RegExp(`[^]{1,${n}}`, "g")) || []).map((p) => esc(p)).join("<br>");
  const num = (v, digits = 0) => (v === null || v === undefined ? "–"
    : Number(v).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  const pct = (v) => (v === null || v === undefined ? "–" : `${(v * 100).toFixed(0)}%`);
  const times = (v) => (v === null || v === undefined ? "–" : `${v.toFixed(2)}×`);
  const val = (v) => (v === null || v === undefined ? "–" : String(v));
  const $ = (sel) => document.querySelector(sel);

  // ---- studies -------------------------------------------------------------------------
  async function studiesPage() {
    const status = $("#status");
    let studies;
    try { studies = await all("/studies"); } catch (e) { status.textContent = e.message; return; }
    const body = $("#studies tbody");
    body.innerHTML = studies.map((s) => `<tr data-search="${esc(
      [s.name, s.script, s.host && s.host.description, s.host && s.host.fingerprint].join(" ").toLowerCase())}">
      <td><a href="/studies/${encodeURIComponent(s.name)}">${esc(s.name)}</a></td>
      <td class="text">${esc(s.script)} ${esc(s.args.join(" "))}</td>
      <td>${esc(s.host ? s.host.description : "")}</td>
      <td class="num">${s.trials.total}</td><td>${esc(s.state)}</td>
      <td class="num">${num(s.best_samples_per_s)}</td><td class="num">${times(s.speedup)}</td>
      <td class="num">${pct(s.efficiency)}</td></tr>`).join("");
    const filter = () => {
      const q = $("#search").value.trim().toLowerCase();
      let shown = 0;
      for (const row of body.rows) {
        row.hidden = q !== "" && !row.dataset.search.includes(q);
        shown += row.hidden ? 0 : 1;
      }
      status.textContent = studies.length === 0
        ? "No studies yet: run `autotune probe train.py` to make one."
        : `${shown} of ${studies.length} studies, newest first`;
    };
    $("#search").addEventListener("input", filter);
    filter();
  }

  // ---- one study -----------------------------------------------------------------------
  function recommendationCard(study, best, storage) {
    const rec = study.recommended;
    if (!rec) {
      const why = study.trials.total === 0 ? "This study has no trials yet."
        : `None of its ${study.trials.total} trials was measured in full ` +
          `(${study.trials.failed} failed, ${study.trials.pruned} pruned).`;
      const failures = (study.failures || []).map((f) =>
        `<li>trial ${f.trial}: ${esc(f.status)}: ${esc(f.reason)}</li>`).join("");
      return `<p class="notice" id="no-rec">No recommendation yet. ${why}</p>
        ${failures ? `<ul id="failures">${failures}</ul>` : ""}
        ${diagnosisHtml(study)}`;
    }
    const base = (study.baseline && study.baseline.config) || {};
    const rows = PARAMS.map((k) => {
      const changed = base[k] !== undefined && String(base[k]) !== String(rec.config[k]);
      return `<span>${k}</span><span class="${changed ? "changed" : ""}" data-param="${k}">${esc(val(rec.config[k]))}</span>
        <span class="muted">${esc(val(base[k]))}</span>`;
    }).join("");
    const ci = rec.ci95 ? ` (95% interval ${num(rec.ci95[0])}–${num(rec.ci95[1])})` : "";
    const script = [study.script, ...(study.args.length ? ["--", ...study.args] : [])];
    const command = ["autotune", "run", script[0], "--study", study.name, "--storage", storage,
      ...(study.args.length ? ["--", ...study.args] : [])].map(shq).join(" ");
    return `<p><span class="big" id="speedup">${times(study.speedup)}</span> the script as written:
        ${num(rec.samples_per_s)} samples/s${ci} vs ${num(study.baseline_samples_per_s)}
        ${ceilingHtml(study)}.</p>
      ${study.verdict ? `<p id="verdict"><b>Verdict:</b> ${esc(study.verdict)}</p>` : ""}
      ${study.choice ? `<p id="choice"><b>Choice:</b> ${esc(study.choice)}</p>` : ""}
      ${study.randomness ? `<p id="randomness"><b>Randomness:</b> ${esc(study.randomness)}</p>` : ""}
      ${study.cores ? `<p id="cores"><b>Cores:</b> ${esc(study.cores)}</p>` : ""}
      ${study.started_from ? `<p id="started-from"><b>Started from:</b> study ${esc(study.started_from)}'s answer, the first guess</p>` : ""}
      ${study.epoch ? epochHtml(study) : othersHtml(study)}
      ${interferenceHtml(study)}
      ${missingCeilingsHtml(study)}

      <div class="rec" id="rec-settings"><b>setting</b><b>recommended</b><b>as written</b>${rows}</div>
      ${diagnosisHtml(study)}
      <h3>Python</h3><pre id="snippet">${esc(best ? best.snippet : "", true)}</pre>
      <button class="copy" data-copy="#snippet">Copy snippet</button>
      <h3>Train with it</h3><pre id="command">${esc(command)}</pre>
      <button class="copy" data-copy="#command">Copy command</button>`;
  }
  function ceilingHtml(study) {
    // Efficiency is stated against the lower (binding) of the compute and transport ceilings.
    const binding = study.binding_ceiling;
    const bound = binding === "transport" ? study.transport_ceiling_samples_per_s : study.ceiling_samples_per_s;
    if (!bound || !binding) return "";
    return `; <span id="efficiency">${pct(study.efficiency)} of the ${esc(binding)} ceiling (${num(bound)} samples/s)</span>`;
  }
  function missingCeilingsHtml(study) {
    // A ceiling that failed says why: a bare "no ceiling" leaves the user guessing.
    const missing = Object.entries(study.ceiling_missing || {});
    if (!missing.length) return "";
    return `<p class="muted" id="ceiling-missing">${missing
      .map(([which, why]) => `No ${esc(which)} ceiling: ${esc(why)}`).join("<br>")}</p>`;
  }
  function secs(v) { return v === null || v === undefined ? "–" : `${Number(v).toFixed(2)} s`; }
  function epochHtml(study) {
    // The epoch the user waits for: every name in it comes from the script, shown as text.
    const e = study.epoch;
    if (!e) return "";
    if (e.as_written_s === null || e.as_written_s === undefined) {
      return `<p class="muted" id="epoch"><b>Epoch:</b> ${esc(e.reason || "no epoch end seen")}</p>`;
    }
    const rec = e.recommended_s === null || e.recommended_s === undefined ? ""
      : `, ${secs(e.recommended_s)} with the recommendation (${e.recommended_predicted ? "predicted" : "measured"})`;
    const share = e.outside_share === null || e.outside_share === undefined ? ""
      : `; outside the training loader: ${pct(e.outside_share)} as written` +
        (e.recommended_outside_share === null || e.recommended_outside_share === undefined ? ""
          : `, ${pct(e.recommended_outside_share)} with the recommendation`);
    const startup = `Training loader start-up per epoch: ${secs(e.startup_s)} as written` +
      (e.recommended_startup_s === null || e.recommended_startup_s === undefined ? "" : `, ${secs(e.recommended_startup_s)} recommended`);
    const payback = e.payback_epochs === null || e.payback_epochs === undefined ? ""
      : ` The run's first start-up: ${secs(e.first_startup_s)} as written, ${secs(e.recommended_first_startup_s)} recommended: ` +
        `the recommendation wins it back after ${e.payback_epochs.toFixed(1)} epochs; a shorter run is slower with it.`;
    const passes = (e.passes || []).map((p) =>
      `<li>${esc(p.dataset)} (${esc(p.loader)}, ${p.batches} batches, ${p.num_workers} workers${p.site ? `, ${esc(p.site)}` : ""}): ${secs(p.seconds)}</li>`).join("");
    return `<div id="epoch"><p><b>Epoch (wall clock):</b> ${secs(e.as_written_s)} as written${rec}${share}.</p>
      <p class="muted">${startup}.${payback} DataLoader builds: ${secs(e.builds_s)}; the rest: ${secs(e.rest_s)}.</p>
      ${passes ? `<ul id="epoch-passes">${passes}</ul>` : ""}${othersHtml(study)}</div>`;
  }
  function othersHtml(study) {
    // The evaluation loaders' own settings and, for a live run, each of their passes in
    // order; their names are the script's, shown as text.
    const o = study.others;
    if (!o) return "";
    const names = esc((o.loaders || []).join(", "));
    const head = o.config
      ? `<p id="epoch-others">Other loaders (${names}): ${o.config.num_workers} workers, persistent; their passes ${secs(o.as_written_s)} an epoch as written, ${secs(o.tuned_s)} tuned.</p>`
      : `<p class="muted" id="epoch-others">Other loaders (${names}): as written; ${esc(o.reason || "")}</p>`;
    const passes = (o.passes || []).map((p) =>
      `<li>${esc(p.loader)}: ${p.num_workers} workers${p.persistent_workers ? ", persistent" : ""}, ${secs(p.seconds)}${p.abandoned ? `; failed, went on as written: ${esc(p.abandoned)}` : ""}</li>`).join("");
    return head + (passes ? `<p class="muted">Their passes in the run, in order:</p><ol id="other-passes">${passes}</ol>` : "");
  }
  function interferenceHtml(study) {
    // Only when another process disturbed some window: a quiet machine needs no warning.
    const i = study.interference;
    if (!i) return "";
    // A ratio across two loads is no speedup: say why none is stated, whatever else was seen.
    const comparison = i.comparison
      ? `<p class="notice" id="comparison"><b>No speedup stated:</b> ${esc(i.comparison)}</p>`
      : "";
    if (!i.disturbed_windows) return comparison;
    const condition = i.condition && (i.condition.kind === "loaded" || i.condition.kind === "changing")
      ? ` Measured ${esc(i.condition.text)}.`
      : "";
    return `<p class="notice" id="interference"><b>Interference:</b> ${esc(i.summary)}${condition}</p>${comparison}`;
  }
  function memoryNote() {
    return `<p class="muted" id="memory-definition">Host memory of a trial is the proportional set size (PSS) of its
      process tree, plus each process's page tables: pages that DataLoader workers share copy-on-write with the main process count once.</p>`;
  }
  function diagnosisHtml(study) {
    const d = study.diagnosis;
    const sentence = d && typeof d === "object" ? d.summary : d;
    return `<p id="diagnosis"><b>Diagnosis:</b> ${esc(sentence || "none yet")}</p>
      <p id="stop-reason"><b>Why the search stopped:</b> ${esc(study.stop_reason || (study.state === "running" ? "still running" : "–"))}</p>`;
  }
  function copyButtons(root) {
    for (const button of root.querySelectorAll("button.copy")) {
      button.addEventListener("click", async () => {
        const text = $(button.dataset.copy).textContent;
        try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; }
        catch (e) { // no clipboard outside https/localhost: select it for Ctrl-C instead
          const range = document.createRange(); range.selectNodeContents($(button.dataset.copy));
          getSelection().removeAllRanges(); getSelection().addRange(range);
          button.textContent = "Selected: press Ctrl-C";
        }
      });
    }
  }

  const hline = (y, color, name) => ({ type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y,
    line: { color, dash: "dash", width: 1.5 }, label: { text: name, textposition: "end", font: { size: 11, color } } });

  function historyChart(study, trials) {
    const measured = trials.filter((t) => t.state === "complete" && t.samples_per_s !== null);
    const pruned = trials.filter((t) => t.state === "pruned");
    const failed = trials.filter((t) => t.state === "fail");
    let best = -Infinity;
    const bestSoFar = measured.map((t) => (best = Math.max(best, t.samples_per_s)));
    const shapes = [];
    if (study.baseline_samples_per_s) shapes.push(hline(study.baseline_samples_per_s, "#888", "as written"));
    if (study.ceiling_samples_per_s) shapes.push(hline(study.ceiling_samples_per_s, "#c33", "ceiling"));
    const hover = (t) => `#${t.number} ${esc(t.state)}<br>${PARAMS.filter((k) => t.config && t.config[k] !== null)
      .map((k) => `${k}=${esc(t.config[k])}`).join("<br>")}${t.reason ? `<br>${wrapped(clip(t.reason, 180), 60)}` : ""}`;
    const traces = [
      { name: "measured", mode: "markers", x: measured.map((t) => t.number), y: measured.map((t) => t.samples_per_s),
        text: measured.map(hover), hoverinfo: "text+y", marker: { size: 9, color: "#2a6fdb" } },
      { name: "best so far", mode: "lines", line: { shape: "hv", color: "#0a6" },
        x: measured.map((t) => t.number), y: bestSoFar, hoverinfo: "skip" },
      { name: "pruned", mode: "markers", x: pruned.map((t) => t.number), y: pruned.map((t) => t.samples_per_s ?? 0),
        text: pruned.map(hover), hoverinfo: "text+y", marker: { size: 10, symbol: "triangle-down", color: "#e9a100" } },
      { name: "failed", mode: "markers", x: failed.map((t) => t.number), y: failed.map(() => 0),
        text: failed.map(hover), hoverinfo: "text", marker: { size: 11, symbol: "x", color: "#c33" } },
    ];
    Plotly.react("chart-history", traces, {
      margin: { t: 10, r: 10, b: 40, l: 60 }, shapes, legend: { orientation: "h", y: -0.2 },
      xaxis: { title: { text: "trial" }, dtick: 1 }, yaxis: { title: { text: "samples/s" }, rangemode: "tozero" },
    }, PLOT_CONFIG);
  }

  // A live run (`autotune run --adapt`) records each segment as a trial with one of these roles
  // (autotune.tuner.LIVE_ROLES); segment 0, the script's own settings, is its baseline.
  const LIVE_ROLES = ["adapt", "reopened"];
  // A reopened segment's reason starts with the run's figures that reopened its search; the
  // segment's own reason, if any, follows "; ". Segments with the same start are one search.
  const reopening = (t) => (t.role === "reopened" ? String(t.reason ?? "").split("; ")[0] : null);
  // What --adapt switches, as the terminal names them.
  const TUNED = { num_workers: "workers", prefetch_factor: "prefetch", persistent_workers: "persistent" };

  function segmentsChart(trials) {
    const live = trials.some((t) => LIVE_ROLES.includes(t.role));
    $("#segments").hidden = !live;
    if (!live) return;
    const timed = trials.filter((t) => t.started_at !== null).sort((a, b) => a.started_at - b.started_at);
    const t0 = timed.length ? timed[0].started_at : 0;
    const at = (t) => t.started_at - t0;
    const measured = timed.filter((t) => t.state !== "fail" && t.samples_per_s !== null);
    const failed = timed.filter((t) => !measured.includes(t));
    const label = (t) => Object.entries(TUNED).filter(([k]) => t.config && t.config[k] !== null && t.config[k] !== undefined)
      .map(([k, name]) => `${name}=${esc(t.config[k])}`).join(" ");
    const ranks = (t) => (t.rank_rates || []).map((r) => `rank ${r.rank}: ${num(r.samples_per_s)} samples/s` +
      (r.status && r.status !== "ok" ? ` (${esc(r.status)})` : "")).join("<br>");
    const hover = (t) => [`#${t.number} ${esc(t.role)} ${esc(t.state)}, started +${num(at(t), 1)} s`,
      PARAMS.filter((k) => t.config && t.config[k] !== null && t.config[k] !== undefined)
        .map((k) => `${k}=${esc(t.config[k])}`).join("<br>"),
      (t.rank_rates || []).length ? `the job's rate; each rank's:<br>${ranks(t)}` : "",
      t.reason ? wrapped(clip(t.reason, 180), 60) : ""].filter(Boolean).join("<br>");
    const shapes = [], annotations = [];
    let previous = null;
    for (const t of timed) {
      const why = reopening(t);
      if (why !== null && why !== previous) {
        shapes.push({ type: "line", xref: "x", yref: "paper", x0: at(t), x1: at(t), y0: 0, y1: 1,
          line: { color: "#e9a100", dash: "dot", width: 2 } });
        // Above the plot, where no segment's point or label can sit under it.
        annotations.push({ x: at(t), y: 1, xref: "x", yref: "paper", xanchor: "left", yanchor: "bottom",
          align: "left", showarrow: false, bgcolor: "rgba(255,255,255,0.8)", font: { size: 10, color: "#8a5a00" },
          text: wrapped(clip(t.reason, 180), 45) }); // whole: a script's text may hold "; " too
      }
      previous = why;
    }
    Plotly.react("chart-segments", [
      { name: "samples/s", mode: "lines+markers+text", line: { shape: "hv", color: "#2a6fdb" },
        x: measured.map(at), y: measured.map((t) => t.samples_per_s),
        marker: { size: 9, color: measured.map((t) => (t.role === "reopened" ? "#e9a100" : "#2a6fdb")) },
        text: measured.map(label), textposition: "bottom right", textfont: { size: 10 },
        hovertext: measured.map(hover), hoverinfo: "text+y" },
      { name: "failed", mode: "markers", x: failed.map(at), y: failed.map(() => 0),
        hovertext: failed.map(hover), hoverinfo: "text", marker: { size: 11, symbol: "x", color: "#c33" } },
    ], {
      margin: { t: annotations.length ? 50 : 10, r: 10, b: 40, l: 60 }, shapes, annotations, legend: { orientation: "h", y: -0.2 },
      xaxis: { title: { text: "seconds since the run's first segment started" }, rangemode: "tozero" },
      yaxis: { title: { text: "samples/s (the job's)" }, rangemode: "tozero" },
    }, PLOT_CONFIG);
  }

  function timeChart(trials) {
    const timed = trials.filter((t) => t.wait_per_batch_s !== null || t.compute_per_batch_s !== null);
    const x = timed.map((t) => `#${t.number}`);
    Plotly.react("chart-time", [
      { type: "bar", name: "data wait", x, y: timed.map((t) => (t.wait_per_batch_s ?? 0) * 1000), marker: { color: "#e9a100" } },
      { type: "bar", name: "rest of the step", x, y: timed.map((t) => (t.compute_per_batch_s ?? 0) * 1000), marker: { color: "#2a6fdb" } },
    ], { barmode: "stack", margin: { t: 10, r: 10, b: 40, l: 60 }, legend: { orientation: "h", y: -0.2 },
         yaxis: { title: { text: "ms per batch" } }, xaxis: { type: "category" } }, PLOT_CONFIG);
  }

  function settingsChart(trials) {
    const xKey = $("#x-param").value, cKey = $("#c-param").value;
    const measured = trials.filter((t) => t.samples_per_s !== null && t.config && t.state !== "fail");
    const groups = new Map();
    for (const t of measured) {
      const key = String(t.config[cKey] ?? "none");
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(t);
    }
    const traces = [...groups.entries()].sort().map(([key, ts]) => ({
      name: esc(`${cKey}=${key}`), mode: "markers", marker: { size: 10 },
      x: ts.map((t) => t.config[xKey] ?? "none"), y: ts.map((t) => t.samples_per_s),
      text: ts.map((t) => `#${t.number}`), hoverinfo: "text+x+y",
    }));
    Plotly.react("chart-settings", traces, {
      margin: { t: 10, r: 10, b: 40, l: 60 }, legend: { orientation: "h", y: -0.2 },
      xaxis: { title: { text: xKey } }, yaxis: { title: { text: "samples/s" }, rangemode: "tozero" },
    }, PLOT_CONFIG);
  }

  const TRIAL_COLUMNS = [
    ["#", (t) => t.number, true], ["state", (t) => t.state], ["role", (t) => t.role],
    ...PARAMS.map((k) => [k, (t) => (t.config ? t.config[k] : null)]),
    ["samples/s", (t) => t.samples_per_s, true, (v) => num(v)],
    ["data wait", (t) => t.data_wait_fraction, true, pct],
    ["step p50 ms", (t) => (t.step_p50_s === null ? null : t.step_p50_s * 1000), true, (v) => num(v, 1)],
    ["step p95 ms", (t) => (t.step_p95_s === null ? null : t.step_p95_s * 1000), true, (v) => num(v, 1)],
    ["failure", (t) => [t.failure_class, t.reason].filter(Boolean).join(": "), false, null, true],
  ];
  // A reason in a table row: its start, the whole of it on hover and on the trial's page.
  const TABLE_CHARS = 200;

  function trialsTable(name, trials, sort) {
    const table = $("#trials");
    $("#trials-empty").hidden = trials.length > 0;
    table.tHead.innerHTML = "<tr>" + TRIAL_COLUMNS.map(([label, , isNum], i) =>
      `<th data-col="${i}" class="${isNum ? "num " : ""}${sort.col === i ? sort.dir : ""}">${esc(label)}</th>`).join("") + "</tr>";
    const get = TRIAL_COLUMNS[sort.col][1];
    const rows = [...trials].sort((a, b) => {
      const va = get(a), vb = get(b);
      if (va === vb) return a.number - b.number;
      if (va === null || va === undefined) return 1;
      if (vb === null || vb === undefined) return -1;
      return (va < vb ? -1 : 1) * (sort.dir === "asc" ? 1 : -1);
    });
    table.tBodies[0].innerHTML = rows.map((t) => `<tr class="${esc(t.state)}" data-number="${t.number}">` +
      TRIAL_COLUMNS.map(([, g, isNum, f, isText], i) => {
        const v = g(t);
        if (isText) return `<td class="text" title="${esc(v)}">${esc(clip(val(v), TABLE_CHARS))}</td>`;
        const text = f ? f(v) : esc(val(v));
        const cell = i === 0 ? `<a href="/studies/${encodeURIComponent(name)}/trials/${t.number}">${text}</a>` : text;
        return `<td${isNum ? ' class="num"' : ""}>${cell}</td>`;
      }).join("") + "</tr>").join("");
  }

  async function studyPage(name, storage) {
    const path = `/studies/${encodeURIComponent(name)}`;
    const sort = { col: 0, dir: "asc" };
    let trials = [];
    for (const id of ["#x-param", "#c-param"]) {
      $(id).innerHTML = PARAMS.map((k) => `<option>${k}</option>`).join("");
      $(id).addEventListener("change", () => settingsChart(trials));
    }
    $("#x-param").value = "num_workers";
    $("#c-param").value = "prefetch_factor";
    $("#trials").tHead.addEventListener("click", (e) => {
      const col = Number(e.target.dataset.col);
      if (Number.isNaN(col)) return;
      sort.dir = sort.col === col && sort.dir === "asc" ? "desc" : "asc";
      sort.col = col;
      trialsTable(name, trials, sort);
    });
    let shown = null; // what the card shows, so a poll does not reset a pressed copy button
    async function refresh() {
      const study = await api(path);
      trials = await all(`${path}/trials`);
      // /best answers 404 until a trial is measured in full: ask only once there is one.
      const best = study.recommended ? await api(`${path}/best`) : null;
      const host = study.host ? study.host.description : "unknown hardware";
      $("#subtitle").textContent = `${vis(study.script ?? "?")} ${vis(study.args.join(" "))} · ${vis(host)} · ${study.state} · ` +
        `${study.trials.total} trials (${study.trials.complete} complete, ${study.trials.failed} failed, ${study.trials.pruned} pruned)`;
      const card = recommendationCard(study, best, storage);
      if (card !== shown) { $("#rec-body").innerHTML = card; copyButtons($("#rec-body")); shown = card; }
      historyChart(study, trials);
      segmentsChart(trials);
      timeChart(trials);
      settingsChart(trials);
      trialsTable(name, trials, sort);
      $("#live").hidden = study.state !== "running";
      document.body.dataset.trials = String(trials.length); // for tests and scripts
      return study.state === "running";
    }
    const loop = async () => {
      let again = true;
      try { again = await refresh(); } catch (e) { $("#rec-body").textContent = `Cannot read the study: ${e.message}`; }
      document.body.dataset.ready = "1";
      if (again) setTimeout(loop, POLL_MS);
    };
    await loop();
  }

  // ---- one trial -----------------------------------------------------------------------
  async function trialPage(name, number) {
    const t = await api(`/studies/${encodeURIComponent(name)}/trials/${number}`);
    Plotly.react("chart-windows", [{ type: "bar", x: t.windows.map((_, i) => i + 1), y: t.windows, marker: { color: "#2a6fdb" } }],
      { margin: { t: 10, r: 10, b: 40, l: 60 }, xaxis: { title: { text: "window" }, dtick: 1 },
        yaxis: { title: { text: "samples/s" }, rangemode: "tozero" } }, PLOT_CONFIG);
    const rows = [["state", t.state], ["role", t.role], ["status", t.status], ["failure", t.failure_class], ["reason", t.reason],
      ...PARAMS.map((k) => [k, t.config ? t.config[k] : null]),
      ["samples/s", num(t.samples_per_s)], ["data wait", pct(t.data_wait_fraction)],
      ["wait per batch ms", num(t.wait_per_batch_s && t.wait_per_batch_s * 1000, 2)],
      ["rest of step per batch ms", num(t.compute_per_batch_s && t.compute_per_batch_s * 1000, 2)],
      ["step p50 / p95 ms", `${num(t.step_p50_s && t.step_p50_s * 1000, 1)} / ${num(t.step_p95_s && t.step_p95_s * 1000, 1)}`],
      ["time to first batch s", num(t.time_to_first_batch_s, 2)], ["main / worker CPU s", `${num(t.main_cpu_s, 2)} / ${num(t.worker_cpu_s, 2)}`],
      ["host memory MB (PSS)", num(t.peak_rss_bytes && t.peak_rss_bytes / 1e6)], ["batches / samples", `${val(t.batches)} / ${val(t.samples)}`],
      ["steady state", t.steady_state], ["warm-up s", num(t.warmup_s_used, 2)],
      ["wall s", num(t.wall_s, 1)], ["partial", t.partial], ["duplicate of", t.duplicate_of]];
    $("#details tbody").innerHTML = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(val(v))}</td></tr>`).join("");
    $("#details").insertAdjacentHTML("afterend", memoryNote());
    if (t.output_tail) { $("#output").hidden = false; $("#output pre").textContent = vis(t.output_tail, true); }
    const gpu = t.gpu || {};
    if (gpu.device_name) {
      $("#gpu").hidden = false;
      // A time series when the probe recorded one; otherwise the summary figures alone.
      const util = gpu.util_series || [], mem = gpu.mem_series || [];
      if (util.length || mem.length) {
        Plotly.react("chart-gpu", [
          { name: "utilisation %", y: util, mode: "lines" },
          { name: "memory GB", y: mem.map((b) => b / 1e9), mode: "lines", yaxis: "y2" },
        ], { margin: { t: 10, r: 60, b: 40, l: 60 }, xaxis: { title: { text: "sample" } },
             yaxis: { title: { text: "%" }, range: [0, 100] }, yaxis2: { title: { text: "GB" }, overlaying: "y", side: "right" } }, PLOT_CONFIG);
      } else $("#chart-gpu").hidden = true;
      $("#gpu-table tbody").innerHTML = Object.entries(gpu).filter(([k]) => !k.endsWith("_series"))
        .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(Array.isArray(v) ? v.join("; ") : val(v))}</td></tr>`).join("");
    }
    document.body.dataset.ready = "1";
  }

  return { studiesPage, studyPage, trialPage };
})();
