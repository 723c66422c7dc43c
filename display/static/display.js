// The table's screen and the pit's page, drawn from the server's snapshot (/state.json's
// data): first the one the page came with, then each one /events sends. Only text nodes
// are made from the data (textContent): nothing in a record can become markup.
"use strict";

const WORDS = {
  es: {limits: "límites de la mesa", min: "mínimo", max: "máximo", chips: "fichas",
       held: "juegos detenidos para el inspector", none_held: "ningún juego detenido",
       decide: "decide con", alarms: "alarmas desde el arranque del controlador",
       no_alarms: "ninguna alarma", sensors: "sensores y puertos",
       no_faults: "ninguna falla de sensor desde el arranque", status: "estado del controlador",
       stats: "estadísticas de vigilancia", stats_none: "(esta mesa no tiene estadísticas)",
       small: "muestra demasiado pequeña: sin prueba", best: "el sector más cargado",
       window: "{g} juegos (ventana: los últimos {n})", expected: "esperado", share: "proporción",
       pending: "cambio anunciado", connection: "sin conexión con el servidor: reintentando",
       up: "conectado", down: "desconectado", faults: "fallas", rules: "reglamento",
       budget: "presupuesto de errores: {n} correcciones por entrada en un juego; más: el " +
               "juego se detiene para el inspector"},
  en: {limits: "table limits", min: "minimum", max: "maximum", chips: "chips",
       held: "games held for the inspector", none_held: "no game held",
       decide: "decide with", alarms: "alarms since the controller started",
       no_alarms: "no alarm", sensors: "sensors and ports",
       no_faults: "no sensor fault since start", status: "controller status",
       stats: "surveillance statistics", stats_none: "(this table has no statistics)",
       small: "sample too small: no test", best: "the busiest sector",
       window: "{g} games (window: the last {n})", expected: "expected", share: "share",
       pending: "change announced", connection: "no connection to the server: retrying",
       up: "connected", down: "down", faults: "faults", rules: "rules",
       budget: "error budget: {n} corrections per input in one game; more: the game is " +
               "held for the inspector"},
};
const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function section(title, id) {
  const box = el("section", "panel");
  if (id) box.id = id;
  if (title) box.appendChild(el("h2", "", title));
  return box;
}

function card(text) {
  if (text === "??") return el("span", "card back", "🂠");
  const rank = text.slice(0, -1) === "T" ? "10" : text.slice(0, -1);
  const suit = text.slice(-1);
  const red = suit === "H" || suit === "D";
  const node = el("span", "card" + (red ? " red" : ""), rank + (SUITS[suit] || suit));
  node.dataset.card = text;
  return node;
}

const PANELS = {
  numbers(p) {
    const box = section(p.title, p.id);
    const row = el("div", "numbers");
    for (const item of p.items) {
      const chip = el("span", "number " + item.colour, item.text);
      if (item.note) chip.title = item.note;
      row.appendChild(chip);
      if (item.note) chip.appendChild(el("small", "", item.note));
    }
    box.appendChild(row);
    return box;
  },
  stats(p) {
    const box = section(p.title, p.id);
    const table = el("table", "stats");
    for (const [label, value] of p.rows) {
      const tr = el("tr");
      tr.appendChild(el("th", "", label));
      tr.appendChild(el("td", "", value));
      table.appendChild(tr);
    }
    box.appendChild(table);
    return box;
  },
  lines(p) {
    const box = section(p.title, p.id);
    for (const line of p.lines) box.appendChild(el("p", "line", line));
    return box;
  },
  hands(p) {
    const box = section(p.title, p.id || "hands");
    const row = el("div", "hands");
    for (const hand of p.hands) {
      const h = el("div", "hand");
      h.appendChild(el("h3", "", hand.name));
      const cards = el("div", "cards");
      for (const c of hand.cards) cards.appendChild(card(c));
      h.appendChild(cards);
      if (hand.total) h.appendChild(el("p", "total", hand.total));
      if (hand.outcome) h.appendChild(el("p", "outcome", hand.outcome));
      row.appendChild(h);
    }
    box.appendChild(row);
    return box;
  },
  grid(p) {
    const box = section(p.title, p.id);
    const grid = el("div", "grid " + p.style);
    grid.style.setProperty("--cols", p.width);
    grid.style.setProperty("--rows", p.height);
    for (const c of p.cells) {
      const cell = el("span", "cell " + c.cls, c.text);
      cell.style.gridColumn = String(c.x + 1);
      cell.style.gridRow = String(c.y + 1);
      grid.appendChild(cell);
    }
    box.appendChild(grid);
    return box;
  },
};

function limits(s, w) {
  const box = section(w.limits, "limits");
  if (s.limits) {
    box.appendChild(el("p", "limits", `${w.min} ${s.limits.min_bet} · ${w.max} ` +
                                      `${s.limits.max_bet} ${w.chips}`));
  }
  const next = s.pending_limits;
  if (next) {
    box.appendChild(el("p", "pending", `${w.pending}: ${next.min_bet}-${next.max_bet} ` +
                                       `${w.chips}, ${next.from}`));
  }
  return box;
}

function held(s, w, full) {
  const box = section(w.held, "held");
  if (!s.held || !s.held.length) {
    box.appendChild(el("p", "", w.none_held));
    return box;
  }
  box.classList.add("alert");
  for (const h of s.held) {
    box.appendChild(el("p", "reason", `#${h.game ?? ""}: ${h.reason}`));
    if (full) for (const d of h.decide) box.appendChild(el("code", "decide", d));
  }
  return box;
}

function drawTable(s, main, w) {
  main.appendChild(el("p", "result " + (s.result_colour || ""), s.result || ""));
  main.appendChild(limits(s, w));
  if (s.held && s.held.length) main.appendChild(held(s, w, false));
  const panels = el("div", "panels");
  for (const p of s.panels || []) if (PANELS[p.kind]) panels.appendChild(PANELS[p.kind](p));
  main.appendChild(panels);
}

function drawPit(s, main, w) {
  const pit = s.pit || {};
  const status = section(w.status, "status");
  status.appendChild(el("p", "", pit.status_line));
  status.appendChild(el("p", "", s.daemon ? s.daemon.text : ""));
  main.appendChild(status);
  main.appendChild(held(s, w, true));
  const alarms = section(`${w.alarms} (${pit.alarm_count || 0})`, "alarms");
  if (!pit.alarms || !pit.alarms.length) alarms.appendChild(el("p", "", w.no_alarms));
  for (const a of pit.alarms || []) {
    alarms.appendChild(el("p", "alarm", `#${a.seq} ${a.code}: ${a.message}`));
  }
  if (pit.unreadable) alarms.appendChild(el("p", "fault", pit.unreadable));
  main.appendChild(alarms);
  const sensors = section(w.sensors, "sensors");
  if (!pit.sensor_faults || !pit.sensor_faults.length) {
    sensors.appendChild(el("p", "", w.no_faults));
  }
  for (const f of pit.sensor_faults || []) {
    sensors.appendChild(el("p", "fault", `${f.name}: ${f.count} ${w.faults}; ${f.message}`));
  }
  if (pit.error_budget !== null && pit.error_budget !== undefined) {
    sensors.appendChild(el("p", "budget", w.budget.replace("{n}", pit.error_budget)));
  }
  for (const port of pit.ports || []) {
    sensors.appendChild(el("p", port.up ? "" : "fault",
                           `${port.port}: ${port.up ? w.up : w.down} (${port.detail || ""})`));
  }
  main.appendChild(sensors);
  main.appendChild(limits(s, w));
  try {
    main.appendChild(drawStats(s.stats, w));
  } catch (e) {  // a figure this page cannot draw: said, the rest of the page stays
    main.appendChild(el("p", "fault", `${w.stats}: ${e}`));
  }
}

// Issue 21's surveillance statistics, the figures of tablectl stats over the last
// [display] stats_history games, drawn here from the snapshot's data.
function pct(x) {
  return x === null || x === undefined ? "-" : (100 * x).toFixed(1) + "%";
}

function pText(p) {
  if (p === 0) return "< 1e-300";
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
}

function drawStats(st, w) {
  const box = section(w.stats, "stats");
  if (!st) {
    box.appendChild(el("p", "", w.stats_none));
    return box;
  }
  const games = el("p", "window", w.window.replace("{n}", st.history)
    .replace("{g}", st.games_folded));
  games.id = "stats-games";
  games.dataset.games = st.games_folded;
  box.appendChild(games);
  if ("chi_square" in st) {
    const line = st.p_value === null || st.p_value === undefined
      ? `χ²: ${w.small} (${st.test || ""})`
      : `χ² ${st.chi_square.toFixed(1)}, ${st.dof} dof, p ${pText(st.p_value)}`;
    const chi = el("p", "chi", line);
    chi.id = "chi";
    chi.dataset.chiSquare = st.chi_square === null ? "" : st.chi_square;
    chi.dataset.pValue = st.p_value === null ? "" : st.p_value;
    box.appendChild(chi);
  }
  const tested = (st.sectors || []).filter((x) => x.p_value !== null);
  const sector = el("p", "sector");
  sector.id = "best-sector";
  if (tested.length) {
    const best = tested.reduce((a, b) => (b.p_value < a.p_value ? b : a));
    sector.textContent = `${w.best}: ${best.pockets.join(" ")}: ` +
      `${best.count} (${w.expected} ${Number(best.expected).toFixed(1)}), ` +
      `p ${pText(best.p_value)}`;
  } else if (st.sectors) {
    sector.textContent = `${w.best}: ${w.small}`;
  }
  if (st.sectors) box.appendChild(sector);
  if (st.shares) {
    const table = el("table", "stats shares");
    for (const [name, sh] of Object.entries(st.shares)) {
      const row = el("tr");
      row.appendChild(el("th", "", name));
      row.appendChild(el("td", "", `${sh.count}/${sh.n}`));
      row.appendChild(el("td", "", `${pct(sh.share)} [${pct(sh.low)}, ${pct(sh.high)}]`));
      row.appendChild(el("td", "", `${w.expected} ${pct(sh.expected)}`));
      table.appendChild(row);
    }
    box.appendChild(table);
  }
  const lines = el("pre", "lines", (st.lines || []).join("\n"));
  box.appendChild(lines);
  for (const c of st.charts || []) box.appendChild(chart(c, w));
  if (st.problem) box.appendChild(el("p", "fault", st.problem));
  return box;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// One chart of stats.chart's shape: a bar per label, the expected counts as a line.
function chart(c, w) {
  const width = 760, height = 180, left = 30, bottom = 30, top = 20;
  const n = c.labels.length;
  const peak = Math.max(1, ...c.counts, ...(c.expected || []));
  const step = (width - left) / Math.max(1, n);
  const y = (v) => top + (height - top - bottom) * (1 - v / peak);
  const root = svg("svg", {viewBox: `0 0 ${width} ${height}`, class: "chart",
                           role: "img", "aria-label": c.title});
  const title = svg("text", {x: left, y: 14, class: "chart-title"});
  title.textContent = c.title;
  root.appendChild(title);
  const bars = svg("g", {class: "bars"});
  c.counts.forEach((v, i) => {
    const bar = svg("rect", {x: left + i * step + 1, y: y(v), width: Math.max(1, step - 2),
                             height: y(0) - y(v), class: "bar"});
    bar.dataset.label = c.labels[i];
    bar.dataset.count = v;
    const tip = svg("title", {});
    tip.textContent = `${c.labels[i]}: ${v}`;
    bar.appendChild(tip);
    bars.appendChild(bar);
    const label = svg("text", {x: left + (i + 0.5) * step, y: height - bottom + 12,
                               class: "chart-label", "text-anchor": "middle"});
    label.textContent = c.labels[i];
    bars.appendChild(label);
  });
  root.appendChild(bars);
  if (c.expected) {
    const points = c.expected.map((e, i) =>
      `${left + i * step},${y(e)} ${left + (i + 1) * step},${y(e)}`).join(" ");
    root.appendChild(svg("polyline", {points, class: "expected"}));
  }
  const axis = svg("text", {x: width / 2, y: height - 2, class: "chart-label",
                            "text-anchor": "middle"});
  axis.textContent = `${c.x_label} (${w.expected}: —)`;
  root.appendChild(axis);
  return root;
}

function render(s) {
  const w = WORDS[s.language] || WORDS.es;
  document.getElementById("title").textContent = `${s.title || ""} — ${s.table || ""}`;
  const state = document.getElementById("state");
  state.textContent = s.state_text || "";
  state.className = "state " + (s.state || "");
  const notice = document.getElementById("notice");
  notice.textContent = s.notice || "";
  notice.hidden = !s.notice;
  const main = el("main");
  main.id = "main";
  (document.body.dataset.page === "pit" ? drawPit : drawTable)(s, main, w);
  document.getElementById("main").replaceWith(main);
  document.body.dataset.seq = String(s.seq);  // the last record shown (the bench reads it)
}

function connect(w) {
  const events = new EventSource("/events");
  events.onmessage = (e) => render(JSON.parse(e.data));
  events.onerror = () => {  // the browser reconnects by itself; say so meanwhile
    const notice = document.getElementById("notice");
    notice.textContent = w.connection;
    notice.hidden = false;
  };
}

document.addEventListener("DOMContentLoaded", () => {
  const first = JSON.parse(document.getElementById("initial").textContent || "{}");
  render(first);
  connect(WORDS[first.language] || WORDS.es);
});
