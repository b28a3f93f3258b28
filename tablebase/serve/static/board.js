"use strict";
// The web board. It knows no rules: it draws the cells of GET /api/{variant}/layout
// (contract: Game.layout in tablebase/games/base.py) and plays by matching the
// cells a user clicks against the moves the API lists for the position. Variants
// explored by search (not complete) take their moves from GET /api/{variant}/board
// and their values from GET /api/{variant}/solve.

const SVG = "http://www.w3.org/2000/svg";
const $ = (selector) => document.querySelector(selector);
//: Longest search the Solve button asks for (the server caps it at 30 s too).
const SOLVE_SECONDS = 30;
//: Boards with more cells than this show compact values ("W13" for "win 13").
const COMPACT_ABOVE = 25;

const app = {
  variants: new Map(), // name -> entry of /api/variants
  variant: null, // the entry being played
  layout: null, // its layout, or null when it has none
  history: [], // [{view, engine}], the current position last
  moves: [], // the current view's moves, each with {label, cells}
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

const variantPath = (suffix = "") => `/api/${encodeURIComponent(app.variant.variant)}${suffix}`;

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
  if (!outcome) return "?";
  return distance === null ? outcome : `${outcome}${joint}${distance}`;
}

function compactValue(outcome, distance) {
  return `${outcome[0].toUpperCase()}${distance === null ? "" : distance}`;
}

// -- what is known of a position ---------------------------------------------

// A view: {position, to_move, outcome, distance, over, moves: [{move, position, outcome, distance}],
// active, owners}; outcome and the moves' values are null where nothing is proved yet.
function viewOf(probe, board) {
  const values = new Map((probe?.moves ?? []).map((m) => [m.move, m]));
  const moves = probe
    ? probe.moves
    : board.moves.map((m) => ({ ...m, outcome: null, distance: null }));
  const source = probe ?? board;
  return {
    position: source.position,
    to_move: source.to_move,
    outcome: probe ? probe.outcome : board.outcome,
    distance: probe ? probe.distance : board.outcome ? 0 : null,
    over: probe ? !probe.moves.length : !board.moves.length,
    moves: moves.map((m) => values.get(m.move) ?? m),
    active: board?.active ?? [],
    owners: board?.owners ?? {},
  };
}

async function known(position) {
  try {
    return await api(variantPath("/solve"), { position, time_limit: 0 });
  } catch (error) {
    if (error instanceof ApiError && error.kind === "not_proved") return null;
    throw error;
  }
}

async function lookUp(position) {
  const regions = Boolean(app.layout?.regions?.length);
  if (app.variant.complete && !regions) return viewOf(await api(variantPath(), { position }), null);
  const board = await api(variantPath("/board"), { position });
  const probe = app.variant.complete ? await api(variantPath(), { position }) : await known(board.position);
  return viewOf(probe, board);
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
  const start = v.outcome ? `${valueText(v.outcome, v.distance, " in ")} for ${v.players[0]}` : "not proved here";
  $("#rules").textContent = `${v.rules} · start: ${start}`;
  try {
    app.layout = await api(variantPath("/layout"));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 501)) throw error;
    app.layout = null;
  }
  app.history = [];
  try {
    await goTo(position || v.start, false);
  } catch (error) {
    if (!position) throw error;
    // a bad position in a link: show the start, and the error
    await goTo(v.start, false);
    throw error;
  }
}

async function goTo(position, engine) {
  const view = await lookUp(position);
  app.history.push({ view, engine });
  show();
}

async function play(move, { answer = true, engine = false } = {}) {
  await goTo(move.position, engine);
  const reply = app.history.at(-1).view.moves[0];
  if (answer && $("#answer").checked && reply?.outcome) {
    await sleep(250);
    await goTo(reply.position, true);
  }
}

function undo() {
  if (app.history.length < 2) return;
  const taken = app.history.pop();
  if (taken.engine && app.history.length > 1) app.history.pop();
  show();
}

async function solve() {
  const current = app.history.at(-1);
  const progress = $("#progress");
  const begun = performance.now();
  progress.hidden = false;
  const tick = () => {
    const seconds = (performance.now() - begun) / 1000;
    progress.querySelector("progress").value = Math.min(seconds / SOLVE_SECONDS, 1);
    progress.querySelector("span").textContent = `Solving… ${Math.floor(seconds)} s (at most ${SOLVE_SECONDS} s)`;
  };
  tick();
  const timer = setInterval(tick, 250);
  try {
    const probe = await api(variantPath("/solve"), { position: current.view.position, time_limit: SOLVE_SECONDS });
    const board = { ...current.view, moves: current.view.moves };
    current.view = viewOf(probe, board);
    show();
  } finally {
    clearInterval(timer);
    progress.hidden = true;
  }
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
  const view = app.history.at(-1).view;
  app.moves = view.moves.map((m) => ({ ...m, ...splitMove(m.move) }));
  app.selection = [];
  const params = new URLSearchParams({ variant: app.variant.variant, position: view.position });
  history.replaceState(null, "", `#${params}`);
  render();
}

function render(choices = []) {
  const view = app.history.at(-1).view;
  renderBoard(view);
  renderStatus(view);
  renderMoves(view);
  renderChooser(choices);
  $("#position").value = view.position;
  $("#undo").disabled = app.history.length < 2;
  $("#best").disabled = !view.moves.length || !view.moves[0].outcome;
  $("#solve").hidden = app.variant.complete;
  $("#solve").disabled = view.over || Boolean(view.outcome && view.moves.every((m) => m.outcome));
}

function onActivate(node, action) {
  node.addEventListener("click", action);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      action();
    }
  });
}

function renderRegions(board, layout, view) {
  const regions = layout.regions ?? [];
  const at = new Map(layout.cells.map((c) => [c.name, c]));
  const overlays = [];
  for (const region of regions) {
    const cells = region.cells.map((name) => at.get(name));
    const left = Math.min(...cells.map((c) => c.x)) - 0.5;
    const top = Math.min(...cells.map((c) => c.y)) - 0.5;
    const width = Math.max(...cells.map((c) => c.x)) + 0.5 - left;
    const height = Math.max(...cells.map((c) => c.y)) + 0.5 - top;
    const frame = { x: left - 0.08, y: top - 0.08, width: width + 0.16, height: height + 0.16 };
    const group = svg("rect", { class: "region", "data-region": region.name, ...frame, rx: 0.08 });
    const owner = view.owners[region.name];
    if (view.active.includes(region.name)) group.dataset.active = "";
    if (owner) group.dataset.owner = owner;
    board.append(group);
    if (owner) {
      // drawn over the cells, translucent: under rules where a won field stays open its cells still show
      const mark = svg("text", {
        class: "owner",
        x: left + width / 2,
        y: top + height / 2,
        "data-region": region.name,
        "data-player": app.variant.players.indexOf(owner),
        style: `font-size: ${Math.min(width, height) * 0.95}px`,
      }, owner);
      overlays.push(mark);
    }
  }
  return overlays;
}

function renderBoard(view) {
  const board = $("#board");
  board.replaceChildren();
  const layout = app.layout;
  board.toggleAttribute("hidden", !layout);
  $("#no-board").hidden = Boolean(layout);
  $("#board-hint").hidden = !layout;
  if (!layout) return;
  const round = layout.shape === "circle";
  const xs = layout.cells.map((c) => c.x);
  const ys = layout.cells.map((c) => c.y);
  const pad = round ? 1.0 : 0.6;
  const left = Math.min(...xs) - pad;
  const top = Math.min(...ys) - pad;
  board.setAttribute("viewBox", `${left} ${top} ${Math.max(...xs) + pad - left} ${Math.max(...ys) + pad - top}`);
  const compact = layout.cells.length > COMPACT_ABOVE;
  board.classList.toggle("compact", compact);
  board.classList.toggle("round", round);

  const at = new Map(layout.cells.map((c) => [c.name, c]));
  for (const [a, b] of layout.edges) {
    board.append(svg("line", { class: "edge", x1: at.get(a).x, y1: at.get(a).y, x2: at.get(b).x, y2: at.get(b).y }));
  }
  const overlays = renderRegions(board, layout, view);
  // labels of round spots go outwards from the middle of the board, off the lines
  const middle = { x: xs.reduce((s, x) => s + x, 0) / xs.length, y: ys.reduce((s, y) => s + y, 0) / ys.length };

  // the best move through each cell that can be clicked next (moves come best first)
  const hints = new Map();
  for (const m of app.moves) {
    const next = m.cells[app.selection.length];
    if (next !== undefined && startsWith(m.cells, app.selection) && !hints.has(next)) hints.set(next, m);
  }
  const contents = boardCells(view.position);
  // names and values lie over the cells and may reach outside them (round spots): drawn apart, not clickable
  const labels = svg("g", { class: "labels" });
  for (const cell of layout.cells) {
    const group = svg("g", { class: "cell", "data-cell": cell.name });
    const { x, y } = cell;
    const player = contents.get(cell.name);
    const hint = hints.get(cell.name);
    let valueAt = { x, y: y + 0.36 };
    let nameAt = { x: x - 0.45, y: y - 0.33 };
    if (round) {
      const dx = x - middle.x;
      const dy = y - middle.y;
      const far = Math.hypot(dx, dy);
      // the middle spot: between two spokes, far enough out for the gap to hold the text
      const angle = far < 1e-6 ? Math.PI * 0.65 : Math.atan2(dy, dx);
      const out = far < 1e-6 ? 1.12 : 0.62;
      valueAt = { x: x + out * Math.cos(angle), y: y + out * Math.sin(angle) };
      const aside = far < 1e-6 ? Math.PI * (-3 / 8) : angle + Math.PI / 2.6;
      nameAt = { x: x + 0.5 * Math.cos(aside), y: y + 0.5 * Math.sin(aside) };
    }
    group.append(
      round
        ? svg("circle", { class: "shape", cx: x, cy: y, r: 0.34 })
        : svg("rect", { class: "shape", x: x - 0.5, y: y - 0.5, width: 1, height: 1 }),
    );
    labels.append(svg("text", { class: `name${round ? " centred" : ""}`, "data-cell": cell.name, ...nameAt }, cell.name));
    if (player) {
      group.dataset.piece = player;
      // above the middle when a value is written under it, so the two do not touch
      const lifted = Boolean(hint?.outcome) && !round;
      const attributes = { class: lifted ? "piece lifted" : "piece", x, y: lifted ? y - 0.1 : y };
      group.append(svg("text", { ...attributes, "data-player": app.variant.players.indexOf(player) }, player));
    }
    let label = `${cell.name}${player ? `, ${player}` : ""}`;
    if (hint) {
      group.dataset.move = hint.move;
      if (hint.outcome) {
        group.dataset.outcome = hint.outcome;
        group.dataset.distance = hint.distance === null ? "" : hint.distance;
        const text = compact && !round ? compactValue(hint.outcome, hint.distance) : valueText(hint.outcome, hint.distance);
        labels.append(
          svg("text", { class: "value", "data-cell": cell.name, "data-outcome": hint.outcome, ...valueAt }, text),
        );
        label += `: ${valueText(hint.outcome, hint.distance, " in ")}`;
      } else {
        group.dataset.outcome = "unknown";
      }
      group.setAttribute("tabindex", "0");
      group.setAttribute("role", "button");
    }
    group.setAttribute("aria-label", label);
    if (app.selection.includes(cell.name)) {
      group.classList.add("selected");
      group.setAttribute("tabindex", "0");
      group.setAttribute("role", "button");
    }
    onActivate(group, () => clickCell(cell.name));
    board.append(group);
  }
  board.append(labels, ...overlays);
}

function renderStatus(view) {
  const status = $("#status");
  delete status.dataset.outcome;
  if (!view.over) {
    if (view.outcome) status.dataset.outcome = view.outcome;
    const value = view.outcome ? valueText(view.outcome, view.distance, " in ") : "not solved yet";
    status.textContent = `${view.to_move} to move: ${value}`;
    return;
  }
  const other = app.variant.players.find((p) => p !== view.to_move);
  const result = { win: `${view.to_move} has won`, loss: `${other} has won`, draw: "draw" }[view.outcome];
  status.textContent = `Game over: ${result}`;
}

function renderMoves(view) {
  const body = $("#moves tbody");
  body.replaceChildren();
  for (const m of app.moves) {
    const row = document.createElement("tr");
    row.dataset.move = m.move;
    row.dataset.outcome = m.outcome ?? "unknown";
    row.dataset.distance = m.distance === null ? "" : m.distance;
    row.tabIndex = 0;
    for (const text of [m.move, m.outcome ?? "?", m.distance === null ? "-" : m.distance, m.position]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    onActivate(row, () => task(() => play(m)));
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
    button.dataset.outcome = m.outcome ?? "unknown";
    button.textContent = `${m.label || m.move}: ${valueText(m.outcome, m.distance)}`;
    button.addEventListener("click", () => task(() => play(m)));
    chooser.append(button);
  }
  if (choices.length) chooser.querySelector("button").focus();
}

// -- start -----------------------------------------------------------------

function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { name: params.get("variant"), position: params.get("position") };
}

function wire() {
  $("#variant").addEventListener("change", (e) => task(() => selectVariant(e.target.value)));
  $("#undo").addEventListener("click", () => task(async () => undo()));
  $("#best").addEventListener("click", () => {
    const best = app.moves[0];
    if (best?.outcome) task(() => play(best, { answer: false }));
  });
  $("#solve").addEventListener("click", () => task(solve));
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
  window.addEventListener("hashchange", () => {
    const { name, position } = fromHash();
    const current = app.history.at(-1)?.view.position;
    if (name === app.variant?.variant && position === current) return;
    const known = app.variants.has(name) ? name : app.variant.variant;
    if (known === app.variant.variant && position) task(() => goTo(position, false));
    else task(() => selectVariant(known, position));
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
  const { name, position } = fromHash();
  const first = list.find((v) => v.complete) ?? list[0];
  await selectVariant(app.variants.has(name) ? name : first.variant, position);
}

task(start);
