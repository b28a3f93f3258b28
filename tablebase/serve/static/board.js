"use strict";
// The web board. It knows no rules: it draws the cells of GET /api/{variant}/layout
// (contract: Game.layout in tablebase/games/base.py) and plays by matching the
// cells a user clicks against the moves GET /api/{variant} lists for the position.

const SVG = "http://www.w3.org/2000/svg";
const $ = (selector) => document.querySelector(selector);

const app = {
  variants: new Map(), // name -> entry of /api/variants
  variant: null, // the entry being played
  layout: null, // its layout, or null when it has none
  history: [], // [{probe, engine}], the current position last
  moves: [], // the current probe's moves, each with {label, cells}
  selection: [], // cells clicked so far towards a move
  busy: false,
};

class ApiError extends Error {
  constructor(status, kind, detail) {
    super(detail);
    this.status = status;
    this.kind = kind;
  }
}

async function api(path, params = {}) {
  const url = new URL(path, location.href);
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.set(key, value);
  }
  const reply = await fetch(url);
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiError(reply.status, body.error, body.detail || `${reply.status} ${reply.statusText}`);
  return body;
}

// -- reading positions and moves through the layout (mirrors board_cells / split_move) --

function boardCells(position) {
  let board = position.split(" ")[0];
  for (const sep of app.layout.separators) board = board.split(sep).join("");
  const out = new Map();
  app.layout.cells.forEach((cell, i) => {
    const ch = board[i];
    out.set(cell.name, ch === undefined || ch === app.layout.empty ? null : app.layout.pieces[ch] ?? null);
  });
  return out;
}

function splitMove(move) {
  if (!app.layout) return { label: move, cells: [] };
  const names = new Set(app.layout.cells.map((c) => c.name));
  const [first, ...rest] = move.split(app.layout.move_separator);
  for (let start = 0; start < first.length; start++) {
    if (names.has(first.slice(start))) return { label: first.slice(0, start), cells: [first.slice(start), ...rest] };
  }
  return { label: move, cells: [] };
}

const startsWith = (cells, prefix) => prefix.every((c, i) => cells[i] === c);

function valueText(outcome, distance, joint = " ") {
  return distance === null ? outcome : `${outcome}${joint}${distance}`;
}

// -- actions ---------------------------------------------------------------

async function task(action) {
  if (app.busy) return;
  app.busy = true;
  document.body.dataset.state = "busy";
  $("#message").textContent = "";
  try {
    await action();
  } catch (error) {
    $("#message").textContent = error.message;
  } finally {
    app.busy = false;
    document.body.dataset.state = "ready";
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function selectVariant(name, position) {
  app.variant = app.variants.get(name);
  $("#variant").value = name;
  const v = app.variant;
  $("#rules").textContent = `${v.rules} · start: ${valueText(v.outcome, v.distance, " in ")} for ${v.players[0]}`;
  try {
    app.layout = await api(`/api/${encodeURIComponent(name)}/layout`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 501)) throw error;
    app.layout = null;
  }
  app.history = [];
  await goTo(position || v.start, false);
}

async function goTo(position, engine) {
  const probe = await api(`/api/${encodeURIComponent(app.variant.variant)}`, { position });
  app.history.push({ probe, engine });
  show();
}

async function play(move, engine = false) {
  await goTo(move.position, engine);
  const answer = app.history.at(-1).probe.moves[0];
  if (!engine && $("#answer").checked && answer) {
    await sleep(250);
    await goTo(answer.position, true);
  }
}

function undo() {
  if (app.history.length < 2) return;
  const taken = app.history.pop();
  if (taken.engine && app.history.length > 1) app.history.pop();
  show();
}

function clickCell(name) {
  if (app.busy) return;
  const last = app.selection.at(-1);
  if (last === name) {
    app.selection = [];
    render();
    return;
  }
  let selection = [...app.selection, name];
  let found = app.moves.filter((m) => startsWith(m.cells, selection));
  if (!found.length && app.selection.length) {
    selection = [name];
    found = app.moves.filter((m) => startsWith(m.cells, selection));
  }
  if (!found.length) {
    app.selection = [];
    render();
    return;
  }
  const complete = found.filter((m) => m.cells.length === selection.length);
  if (complete.length === 1 && complete.length === found.length) {
    task(() => play(complete[0]));
    return;
  }
  app.selection = selection;
  render(complete);
}

// -- drawing ---------------------------------------------------------------

function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function show() {
  const probe = app.history.at(-1).probe;
  app.moves = probe.moves.map((m) => ({ ...m, ...splitMove(m.move) }));
  app.selection = [];
  const params = new URLSearchParams({ variant: app.variant.variant, position: probe.position });
  history.replaceState(null, "", `#${params}`);
  render();
}

function render(choices = []) {
  const probe = app.history.at(-1).probe;
  renderBoard(probe);
  renderStatus(probe);
  renderMoves(probe);
  renderChooser(choices);
  $("#position").value = probe.position;
  $("#undo").disabled = app.history.length < 2;
  $("#best").disabled = !probe.moves.length;
}

function renderBoard(probe) {
  const board = $("#board");
  board.replaceChildren();
  const layout = app.layout;
  board.toggleAttribute("hidden", !layout);
  $("#no-board").hidden = Boolean(layout);
  if (!layout) return;
  const xs = layout.cells.map((c) => c.x);
  const ys = layout.cells.map((c) => c.y);
  const pad = 0.6;
  const left = Math.min(...xs) - pad;
  const top = Math.min(...ys) - pad;
  board.setAttribute("viewBox", `${left} ${top} ${Math.max(...xs) + pad - left} ${Math.max(...ys) + pad - top}`);

  const at = new Map(layout.cells.map((c) => [c.name, c]));
  for (const [a, b] of layout.edges) {
    board.append(svg("line", { class: "edge", x1: at.get(a).x, y1: at.get(a).y, x2: at.get(b).x, y2: at.get(b).y }));
  }

  // the best move through each cell that can be clicked next (moves come best first)
  const hints = new Map();
  for (const m of app.moves) {
    const next = m.cells[app.selection.length];
    if (next !== undefined && startsWith(m.cells, app.selection) && !hints.has(next)) hints.set(next, m);
  }
  const contents = boardCells(probe.position);
  const round = layout.shape === "circle";
  for (const cell of layout.cells) {
    const group = svg("g", { class: "cell", "data-cell": cell.name });
    const { x, y } = cell;
    group.append(
      round
        ? svg("circle", { class: "shape", cx: x, cy: y, r: 0.34 })
        : svg("rect", { class: "shape", x: x - 0.5, y: y - 0.5, width: 1, height: 1 }),
    );
    group.append(svg("text", { class: "name", x: x - (round ? 0.1 : 0.45), y: y - (round ? 0.38 : 0.33) }, cell.name));
    const player = contents.get(cell.name);
    if (player) {
      group.dataset.piece = player;
      group.append(svg("text", { class: "piece", x, y, "data-player": app.variant.players.indexOf(player) }, player));
    }
    const hint = hints.get(cell.name);
    if (hint) {
      group.dataset.outcome = hint.outcome;
      group.dataset.distance = hint.distance === null ? "" : hint.distance;
      group.dataset.move = hint.move;
      group.append(svg("text", { class: "value", x, y: y + (round ? 0.52 : 0.38) }, valueText(hint.outcome, hint.distance)));
    }
    if (app.selection.includes(cell.name)) group.classList.add("selected");
    group.addEventListener("click", () => clickCell(cell.name));
    board.append(group);
  }
}

function renderStatus(probe) {
  const status = $("#status");
  status.dataset.outcome = probe.outcome;
  if (probe.moves.length) {
    status.textContent = `${probe.to_move} to move: ${valueText(probe.outcome, probe.distance, " in ")}`;
    return;
  }
  const other = app.variant.players.find((p) => p !== probe.to_move);
  const result = { win: `${probe.to_move} has won`, loss: `${other} has won`, draw: "draw" }[probe.outcome];
  status.textContent = `Game over: ${result}`;
}

function renderMoves(probe) {
  const body = $("#moves tbody");
  body.replaceChildren();
  for (const m of app.moves) {
    const row = document.createElement("tr");
    row.dataset.move = m.move;
    row.dataset.outcome = m.outcome;
    row.dataset.distance = m.distance === null ? "" : m.distance;
    for (const text of [m.move, m.outcome, m.distance === null ? "-" : m.distance, m.position]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    row.addEventListener("click", () => task(() => play(m)));
    body.append(row);
  }
}

function renderChooser(choices) {
  const chooser = $("#chooser");
  chooser.replaceChildren();
  chooser.hidden = !choices.length;
  for (const m of choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.move = m.move;
    button.dataset.outcome = m.outcome;
    button.textContent = `${m.label || m.move}: ${valueText(m.outcome, m.distance)}`;
    button.addEventListener("click", () => task(() => play(m)));
    chooser.append(button);
  }
}

// -- start -----------------------------------------------------------------

function wire() {
  $("#variant").addEventListener("change", (e) => task(() => selectVariant(e.target.value)));
  $("#undo").addEventListener("click", () => task(async () => undo()));
  $("#best").addEventListener("click", () => {
    const best = app.moves[0];
    if (best) task(() => play(best));
  });
  $("#restart").addEventListener("click", () => task(() => selectVariant(app.variant.variant)));
  $("#position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    task(() => goTo($("#position").value.trim(), false));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.selection.length) {
      app.selection = [];
      render();
    }
  });
}

async function start() {
  wire();
  const list = await api("/api/variants");
  const select = $("#variant");
  for (const v of list) {
    app.variants.set(v.variant, v);
    select.append(new Option(v.variant, v.variant));
  }
  if (!list.length) throw new Error("No variant is built in this database; run: tablebase build tictactoe");
  const params = new URLSearchParams(location.hash.slice(1));
  const name = app.variants.has(params.get("variant")) ? params.get("variant") : list[0].variant;
  await selectVariant(name, params.get("position"));
}

task(start);
