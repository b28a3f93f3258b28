"use strict";
// The web board. It knows no rules: it draws the cells of GET /api/{variant}/layout
// (contract: Game.layout in tablebase/games/base.py) and plays by matching the
// cells a user clicks against the moves the API lists for the position. Variants
// explored by search (not complete) take their moves from GET /api/{variant}/board
// and their values from GET /api/{variant}/solve: a position shown without them is
// searched at once (unless "Analyse positions as they are shown" is off), in slices of
// SLICE_SECONDS whose partial answers fill in each move's value as it is proved.
//
// The game played so far is a record of positions (one per ply, the start first);
// the address (#variant=...&position=...) names the position shown, and every move
// adds an entry to the browser's history, so Back and Forward walk through the game.

const SVG = "http://www.w3.org/2000/svg";
const $ = (selector) => document.querySelector(selector);
//: Longest search of a position, shown or asked for with Solve (the server caps a request at 30 s too).
const SOLVE_SECONDS = 30;
//: One request of a search: the moves proved within it are shown before the next goes on.
const SLICE_SECONDS = 2;
//: Where the page keeps whether positions are analysed as they are shown.
const ANALYSE_KEY = "tablebase.analyse";
//: Boards with more cells than this show compact values ("W13" for "win 13").
const COMPACT_ABOVE = 25;
//: The variant a page opens on when its address names none.
const DEFAULT_VARIANT = "tictactoe";

const app = {
  variants: new Map(), // name -> entry of /api/variants
  variant: null, // the entry being played
  layout: null, // its layout, or null when it has none
  record: [], // [{view, move, engine}]: the start (move null), then one entry per ply
  at: 0, // index in record of the position shown
  moves: [], // the shown view's moves, each with {label, cells}
  selection: [], // cells clicked so far towards a move
  busy: false,
  controller: null, // AbortController of the running action
  analysis: null, // AbortController of the search of the shown position started by showing it
  running: null, // promise of the running action
  asked: new Set(), // variants whose positions were searched on request: their proved values are asked for
  dropped: null, // the position whose new disc was last let fall (gravity boards), so it falls once
};

class ApiError extends Error {
  constructor(status, kind, detail) {
    super(detail);
    this.status = status;
    this.kind = kind;
  }
}

async function api(path, params = {}, signal = app.controller?.signal) {
  const url = new URL(path, location.href);
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.set(key, value);
  }
  const reply = await fetch(url, { signal });
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiError(reply.status, body.error, body.detail || `${reply.status} ${reply.statusText}`);
  return body;
}

const variantPath = (suffix = "", name = app.variant.variant) => `/api/${encodeURIComponent(name)}${suffix}`;
const shown = () => app.record[app.at];

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
  const removal = app.layout.removal_separator;
  let removed = [];
  if (removal && move.includes(removal)) {
    const at = move.lastIndexOf(removal);
    const taken = move.slice(at + removal.length);
    if (at > 0 && names.has(taken)) [move, removed] = [move.slice(0, at), [taken]];
  }
  const [first, ...rest] = move.split(app.layout.move_separator);
  for (let start = 0; start < first.length; start++) {
    if (names.has(first.slice(start))) return { label: first.slice(0, start), cells: [first.slice(start), ...rest, ...removed] };
  }
  return { label: move, cells: [] };
}

const startsWith = (cells, prefix) => prefix.every((c, i) => cells[i] === c);

// A draw without a distance (perpetual play) reads "perpetual draw" in a sentence, as on the command line.
function valueText(outcome, distance, joint = " ") {
  if (!outcome) return "?";
  if (distance === null) return outcome === "draw" && joint === " in " ? "perpetual draw" : outcome;
  return `${outcome}${joint}${distance}`;
}

function compactValue(outcome, distance) {
  return `${outcome[0].toUpperCase()}${distance === null ? "" : distance}`;
}

// -- what is known of a position ---------------------------------------------

// A view: {position, to_move, outcome, distance, over, moves: [{move, position, outcome, distance}],
// active, owners, line}; outcome and the moves' values are null where nothing is proved yet.
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
    line: board?.line ?? [],
  };
}

async function known(position) {
  // asked only once the user has searched this variant: an unproved position answers 503
  if (!app.asked.has(app.variant.variant)) return null;
  try {
    return await api(variantPath("/solve"), { position, time_limit: 0 });
  } catch (error) {
    if (error instanceof ApiError && error.kind === "not_proved") return null;
    throw error;
  }
}

async function lookUp(position) {
  const regions = Boolean(app.layout?.regions?.length);
  if (app.variant.complete && !regions) {
    const probe = await api(variantPath(), { position });
    // the board's marks (the winning line) matter only once the game is over
    const board = probe.moves.length || !app.layout ? null : await api(variantPath("/board"), { position });
    return viewOf(probe, board);
  }
  const board = await api(variantPath("/board"), { position });
  const probe = app.variant.complete
    ? await api(variantPath(), { position })
    : (app.variant.tiers?.length ? await stored(board.position) : null) ?? (await known(board.position));
  return viewOf(probe, board);
}

async function stored(position) {
  // a position of a variant built tier by tier, from the file: 404 when it lies in no tier stored
  try {
    return await api(variantPath(), { position });
  } catch (error) {
    if (error instanceof ApiError && error.kind === "not_solved") return null;
    throw error;
  }
}

// -- actions ---------------------------------------------------------------

// Runs one action at a time; a new action cancels the one running (a search, a lookup) and the
// analysis of the shown position; once it is over, the position it shows is analysed.
async function task(action) {
  stopAnalysis();
  while (app.busy) {
    app.controller.abort();
    await app.running;
  }
  app.busy = true;
  app.controller = new AbortController();
  document.body.dataset.state = "busy";
  $("#message").textContent = "";
  app.running = (async () => {
    try {
      await action();
    } catch (error) {
      if (error.name !== "AbortError") $("#message").textContent = error.message;
    } finally {
      app.busy = false;
      app.controller = null;
      document.body.dataset.state = "ready";
    }
  })();
  await app.running;
  if (!app.busy) analyse();
}

function cancel() {
  app.controller?.abort();
  stopAnalysis();
}

// Whether the search of ``view`` starts when it is shown: a position of a variant explored by search
// whose value or a move's value is not known, not searched to the end of its time already.
function wanted(view) {
  return $("#analyse").checked && !app.variant.complete && !view.over && !view.searched
    && (!view.outcome || view.moves.some((m) => !m.outcome));
}

// Searches the shown position in the background (the board stays usable; any action stops it).
async function analyse() {
  const entry = app.record.length ? shown() : null;
  if (!entry || !wanted(entry.view)) return;
  const controller = new AbortController();
  app.analysis = controller;
  document.body.dataset.analysis = "running";
  try {
    await search(entry, controller.signal);
  } catch (error) {
    if (error.name !== "AbortError") $("#message").textContent = error.message;
  } finally {
    if (app.analysis === controller) {
      app.analysis = null;
      delete document.body.dataset.analysis;
    }
  }
}

function stopAnalysis() {
  app.analysis?.abort();
  app.analysis = null;
  delete document.body.dataset.analysis;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function describeVariant() {
  const v = app.variant;
  $("#variant").value = v.variant;
  const start = v.outcome ? `${valueText(v.outcome, v.distance, " in ")} for ${v.players[0]}` : "not proved here";
  $("#rules").textContent = `${v.rules} · start: ${start}`;
  try {
    app.layout = await api(variantPath("/layout"));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 501)) throw error;
    app.layout = null;
  }
}

async function selectVariant(name, position, push = true) {
  app.variant = app.variants.get(name);
  app.layout = null;
  app.record = [];
  await describeVariant();
  try {
    await begin(position || app.variant.start, push);
  } catch (error) {
    if (!position || error.name === "AbortError") throw error;
    // a bad position in a link: show the start, and the error
    await begin(app.variant.start, false);
    throw error;
  }
}

// A new record starting at ``position``.
async function begin(position, push) {
  const view = await lookUp(position);
  app.record = [{ view, move: null, engine: false }];
  app.at = 0;
  show(push);
}

// Plays ``move`` (an entry of the shown view's moves): the record after the shown position is replaced.
async function play(move, { answer = true, engine = false } = {}) {
  const view = await lookUp(move.position);
  app.record = app.record.slice(0, app.at + 1);
  app.record.push({ view, move, engine });
  app.at = app.record.length - 1;
  show(true);
  if (answer && !engine && $("#answer").checked) await playBest({ engine: true });
}

// Plays the best move of the shown position, its moves searched first where their values are not known
// yet: perfect play's answer (``engine``, after a pause), or the user's "Play best move".
async function playBest({ engine }) {
  if (!shown().view.moves[0]?.outcome && !shown().view.over) await solve();
  const best = shown().view.moves[0];
  if (!best?.outcome) return;
  if (engine) await sleep(250);
  await play(best, { answer: false, engine });
}

// Goes to ``position`` of the shown variant: a step of the record if it is one, a move if one leads there.
async function goTo(position, push = true) {
  const step = app.record.findIndex((r) => r.view.position === position);
  if (step >= 0) return jump(step, push);
  const move = shown().view.moves.find((m) => m.position === position || m.move === position);
  if (move) return play(move, { answer: false });
  return begin(position, push);
}

function jump(index, push = false) {
  if (index < 0 || index >= app.record.length) return;
  app.at = index;
  show(push);
}

function undo() {
  if (app.at < 1) return;
  const taken = app.record[app.at];
  app.at -= taken.engine && app.at > 1 ? 2 : 1;
  app.record = app.record.slice(0, app.at + 1);
  show(true);
}

// The Solve button: the shown position searched as an action (the board waits for it).
async function solve() {
  await search(shown(), app.controller.signal);
}

// Searches the position of ``entry`` (a record entry) for at most SOLVE_SECONDS, in slices: after each,
// the moves proved so far show their values, the others "?"; stops when everything is proved.
async function search(entry, signal) {
  const progress = $("#progress");
  const begun = performance.now();
  const elapsed = () => (performance.now() - begun) / 1000;
  progress.hidden = false;
  $("#cancel").hidden = false;
  const tick = () => {
    const seconds = elapsed();
    const moves = entry.view.moves;
    const proved = moves.filter((m) => m.outcome).length;
    progress.querySelector("progress").value = Math.min(seconds / SOLVE_SECONDS, 1);
    progress.querySelector("span").textContent =
      `Solving… ${Math.floor(seconds)} s (at most ${SOLVE_SECONDS} s), ${proved} of ${moves.length} moves proved`;
  };
  tick();
  const timer = setInterval(tick, 250);
  try {
    app.asked.add(app.variant.variant);
    for (let left = SOLVE_SECONDS; left > 0; left = SOLVE_SECONDS - elapsed()) {
      const limit = Math.max(Math.min(SLICE_SECONDS, left), 0.1).toFixed(1);
      let probe;
      try {
        probe = await api(variantPath("/solve"), { position: entry.view.position, time_limit: limit, partial: true }, signal);
      } catch (error) {
        // the search just stopped may still hold the server's solver for the rest of its slice
        if (!(error instanceof ApiError && error.kind === "busy")) throw error;
        await sleep(250);
        continue;
      }
      entry.view = viewOf(probe, entry.view);
      if (shown() === entry) refresh();
      tick();
      if (probe.proved) break;
    }
    entry.view.searched = true;
  } finally {
    clearInterval(timer);
    progress.hidden = true;
    $("#cancel").hidden = true;
    if (shown() === entry) refresh();
  }
}

function clickCell(name) {
  const direct = app.layout.click_moves?.[name];
  if (direct !== undefined) {
    const move = app.moves.find((m) => m.move === direct);
    if (move) task(() => play(move));
    return;
  }
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

// Predecessors or the perfect line of the shown position, listed under the board.
async function explore(kind) {
  const position = shown().view.position;
  const list = $("#explore-list");
  const items = [];
  if (kind === "line") {
    const line = await api(variantPath("/line"), { position });
    $("#explore-title").textContent = `Perfect line from here (${line.outcome} for ${shown().view.to_move})`;
    line.moves.forEach((move, i) => items.push({ text: move, position: line.positions[i], steps: line.moves.slice(0, i + 1) }));
    if (line.repeats) items.push({ text: "… repeats" });
  } else {
    const reply = await api(variantPath("/predecessors"), { position });
    $("#explore-title").textContent = `Positions one move before (${reply.predecessors.length})`;
    for (const p of reply.predecessors) items.push({ text: `${p.position} (then ${p.move})`, position: p.position });
  }
  list.replaceChildren();
  list.dataset.kind = kind;
  for (const item of items) {
    const li = document.createElement("li");
    if (item.position) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.dataset.position = item.position;
      button.textContent = item.text;
      button.addEventListener("click", () => task(() => (item.steps ? playLine(item.steps) : begin(item.position, true))));
      li.append(button);
    } else {
      li.textContent = item.text;
    }
    list.append(li);
  }
  $("#explore").hidden = false;
}

// Plays the moves of the perfect line from the shown position.
async function playLine(steps) {
  for (const text of steps) {
    const move = shown().view.moves.find((m) => m.move === text);
    if (!move) throw new Error(`move ${text} is not legal here`);
    await play(move, { answer: false });
  }
}

async function copyLink() {
  const note = $("#copied");
  try {
    await navigator.clipboard.writeText(location.href);
    note.textContent = "Link copied";
  } catch {
    note.textContent = location.href;
  }
  note.hidden = false;
}

// -- drawing ---------------------------------------------------------------

function svg(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

const address = (position) => `#${new URLSearchParams({ variant: app.variant.variant, position })}`;

function show(push) {
  const view = shown().view;
  app.moves = view.moves.map((m) => ({ ...m, ...splitMove(m.move) }));
  app.selection = [];
  const url = address(view.position);
  if (push && url !== location.hash) history.pushState({ at: app.at }, "", url);
  else history.replaceState({ at: app.at }, "", url);
  app.followed = url;
  $("#explore").hidden = true;
  $("#copied").hidden = true;
  render();
}

// Redraws the shown position after its values changed, keeping the cells selected towards a move.
function refresh() {
  app.moves = shown().view.moves.map((m) => ({ ...m, ...splitMove(m.move) }));
  render();
}

function render(choices = []) {
  const view = shown().view;
  renderBoard(view);
  renderStatus(view);
  renderMoves(view);
  renderRecord();
  renderChart();
  renderChooser(choices);
  $("#position").value = view.position;
  $("#undo").disabled = app.at < 1;
  $("#best").disabled = !view.moves.length;
  $("#solve").hidden = app.variant.complete;
  // the perfect line needs every position's value: variants explored by search have none to follow
  $("#show-line").hidden = !app.variant.complete;
  $("#solve").disabled = view.over || Boolean(view.outcome && view.moves.every((m) => m.outcome));
}

function onActivate(node, action) {
  node.addEventListener("click", action);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
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

// How to play the shown position on the board, from what the layout and the moves say: a column
// for a gravity layout, else the cells a move is made of (one: a placement; more: a token and
// where it goes), a choice where moves on the same cells differ by a label, the active field.
function boardHint(layout, view) {
  const how = "(or Tab to it and press Enter)";
  if (layout.gravity) {
    return `Click a column ${how} to drop a disc in it; the value above a column is that of dropping there.`;
  }
  const counts = new Set(app.moves.map((m) => m.cells.length));
  const ways = [];
  if (counts.has(1)) ways.push(`Click a cell ${how} to play there`);
  if ([...counts].some((n) => n > 1)) {
    ways.push(ways.length ? "to move a token, click it, then where it goes" : `Click a token ${how}, then where it goes`);
  }
  if (!ways.length) return "";
  let text = ways.join("; ");
  if (app.moves.some((m) => m.label)) text += ", then pick one of the moves offered for it";
  text += ".";
  if (view.active.length === 1) text += " The move goes in the highlighted field.";
  else if (view.active.length) text += " The move goes in one of the highlighted fields.";
  return text;
}

// Cells whose contents differ between the previous position of the record and the shown one.
function lastMoveCells() {
  if (app.at < 1) return new Set();
  const before = boardCells(app.record[app.at - 1].view.position);
  const after = boardCells(shown().view.position);
  return new Set([...after.keys()].filter((name) => before.get(name) !== after.get(name)));
}

// The best move through each cell that can be clicked next (moves come best first),
// and for one-click cells the move they play, its value written on the last empty one.
function cellHints(contents) {
  const hints = new Map();
  const valueCells = new Set();
  for (const m of app.moves) {
    const next = m.cells[app.selection.length];
    if (next !== undefined && startsWith(m.cells, app.selection) && !hints.has(next)) {
      hints.set(next, m);
      valueCells.add(next);
    }
  }
  const direct = app.layout.click_moves ?? {};
  const landing = new Map();
  for (const cell of app.layout.cells) {
    const move = app.moves.find((m) => m.move === direct[cell.name]);
    if (!move || contents.get(cell.name)) continue;
    hints.set(cell.name, move);
    landing.set(move.move, cell.name);
  }
  for (const name of landing.values()) valueCells.add(name);
  return { hints, valueCells };
}

// Columns of a gravity layout, left to right: {move, x, cells (top to bottom)}; a column is the cells
// that click_moves sends to one move.
function columnsOf(layout) {
  const direct = layout.click_moves ?? {};
  const columns = new Map();
  for (const cell of layout.cells) {
    const move = direct[cell.name];
    if (move === undefined) continue;
    if (!columns.has(move)) columns.set(move, { move, x: cell.x, cells: [] });
    columns.get(move).cells.push(cell);
  }
  const list = [...columns.values()].sort((a, b) => a.x - b.x);
  for (const column of list) column.cells.sort((a, b) => a.y - b.y);
  return list;
}

// Round discs in a frame, each column's number under it and its move's value once above it (the
// outcome over the distance, so that it stays within its column on narrow columns), the last disc
// marked and let fall from above the board: the drawing of a gravity layout.
function renderGravity(board, layout, view) {
  const xs = layout.cells.map((c) => c.x);
  const ys = layout.cells.map((c) => c.y);
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  board.setAttribute("viewBox", `${left - 0.65} ${top - 1.45} ${right - left + 1.3} ${bottom - top + 2.65}`);
  board.append(svg("rect", {
    class: "frame", x: left - 0.55, y: top - 0.55, width: right - left + 1.1, height: bottom - top + 1.1, rx: 0.25,
  }));
  const contents = boardCells(view.position);
  const changed = lastMoveCells();
  const line = new Set(view.line);
  const byMove = new Map(app.moves.map((m) => [m.move, m]));
  const labels = svg("g", { class: "labels" });
  const fall = app.dropped !== view.position;
  for (const column of columnsOf(layout)) {
    const move = byMove.get(column.move);
    const landing = [...column.cells].reverse().find((c) => !contents.get(c.name));
    // each label followed by a space, so that the board's text reads "1 draw 16 2 ..." and not "1draw 162"
    labels.append(svg("text", { class: "column-number", "data-column": column.move, x: column.x, y: bottom + 0.85 }, column.move), " ");
    if (move?.outcome) {
      const x = column.x;
      const value = svg("text", { class: "value column-value", "data-column": column.move, "data-outcome": move.outcome, x });
      if (move.distance === null) {
        value.append(svg("tspan", { x, y: top - 0.95 }, move.outcome));
      } else {
        value.append(svg("tspan", { x, y: top - 1.12 }, move.outcome), " ", svg("tspan", { x, y: top - 0.8 }, move.distance));
      }
      labels.append(value, " ");
    }
    for (const cell of column.cells) {
      const group = svg("g", { class: "cell", "data-cell": cell.name });
      group.append(svg("circle", { class: "shape", cx: cell.x, cy: cell.y, r: 0.4 }));
      const player = contents.get(cell.name);
      let label = `column ${column.move}`;
      if (player) {
        group.dataset.piece = player;
        const disc = svg("circle", { class: "disc", cx: cell.x, cy: cell.y, r: 0.4, "data-player": app.variant.players.indexOf(player) });
        if (changed.has(cell.name) && fall) {
          disc.classList.add("falling");
          disc.style.setProperty("--fall", `${top - 1.2 - cell.y}px`);
          group.dataset.dropped = "";
        }
        group.append(disc);
        label += `, ${player}`;
      }
      if (changed.has(cell.name)) group.dataset.last = "";
      if (line.has(cell.name)) group.dataset.line = "";
      if (move) {
        group.dataset.move = move.move;
        group.setAttribute("tabindex", cell === landing ? "0" : "-1");
        group.setAttribute("role", "button");
        if (cell === landing) {
          group.dataset.outcome = move.outcome ?? "unknown";
          if (move.outcome) group.dataset.distance = move.distance === null ? "" : move.distance;
          label += `: drop here${move.outcome ? `, ${valueText(move.outcome, move.distance, " in ")}` : ""}`;
        }
      }
      group.setAttribute("aria-label", label);
      onActivate(group, () => clickCell(cell.name));
      board.append(group);
    }
  }
  board.append(labels);
  if (changed.size) app.dropped = view.position;
  if (view.line.length > 1) {
    const at = new Map(layout.cells.map((c) => [c.name, c]));
    const ends = [at.get(view.line[0]), at.get(view.line.at(-1))];
    board.append(svg("line", { class: "win-line", x1: ends[0].x, y1: ends[0].y, x2: ends[1].x, y2: ends[1].y }));
  }
}

function renderBoard(view) {
  const board = $("#board");
  board.replaceChildren();
  const layout = app.layout;
  board.toggleAttribute("hidden", !layout);
  $("#no-board").hidden = Boolean(layout);
  $("#board-hint").hidden = !layout;
  if (!layout) return;
  $("#board-hint").textContent = boardHint(layout, view);
  board.classList.toggle("gravity", Boolean(layout.gravity));
  if (layout.gravity) {
    board.classList.remove("compact", "round", "long-values");
    renderGravity(board, layout, view);
    return;
  }
  const round = layout.shape === "circle";
  const xs = layout.cells.map((c) => c.x);
  const ys = layout.cells.map((c) => c.y);
  // room for the frames of regions and the strokes of edge cells
  const pad = round ? 1.0 : layout.regions?.length ? 0.75 : 0.65;
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

  const contents = boardCells(view.position);
  const { hints, valueCells } = cellHints(contents);
  const changed = lastMoveCells();
  const line = new Set(view.line);
  // names and values lie over the cells and may reach outside them (round spots): drawn apart, not clickable
  const labels = svg("g", { class: "labels" });
  for (const cell of layout.cells) {
    const group = svg("g", { class: "cell", "data-cell": cell.name });
    const { x, y } = cell;
    const player = contents.get(cell.name);
    const hint = hints.get(cell.name);
    const valued = Boolean(hint?.outcome) && valueCells.has(cell.name);
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
      const lifted = valued && !round;
      const attributes = { class: lifted ? "piece lifted" : "piece", x, y: lifted ? y - 0.1 : y };
      group.append(svg("text", { ...attributes, "data-player": app.variant.players.indexOf(player) }, player));
    }
    if (changed.has(cell.name)) group.dataset.last = "";
    if (line.has(cell.name)) group.dataset.line = "";
    let label = `${cell.name}${player ? `, ${player}` : ""}`;
    if (hint) {
      group.dataset.move = hint.move;
      if (hint.outcome) {
        group.dataset.outcome = hint.outcome;
        group.dataset.distance = hint.distance === null ? "" : hint.distance;
        if (valued) {
          const text = compact && !round ? compactValue(hint.outcome, hint.distance) : valueText(hint.outcome, hint.distance);
          labels.append(
            svg("text", { class: "value", "data-cell": cell.name, "data-outcome": hint.outcome, ...valueAt }, text),
          );
        }
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
  // one size for every value of a board, small enough for the longest ("draw 16") to stay inside its cell
  board.classList.toggle("long-values", [...labels.querySelectorAll(".value")].some((v) => v.textContent.length > 6));
  if (view.line.length > 1) {
    const ends = [at.get(view.line[0]), at.get(view.line.at(-1))];
    board.append(svg("line", { class: "win-line", x1: ends[0].x, y1: ends[0].y, x2: ends[1].x, y2: ends[1].y }));
  }
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

// The game record: one item per ply, the move and what it achieves for its player.
function renderRecord() {
  const list = $("#record");
  list.replaceChildren();
  app.record.slice(1).forEach((step, i) => {
    const ply = i + 1;
    const item = document.createElement("li");
    item.dataset.ply = ply;
    item.dataset.outcome = step.move.outcome ?? "unknown";
    item.dataset.move = step.move.move;
    if (ply === app.at) item.setAttribute("aria-current", "step");
    if (ply > app.at) item.classList.add("ahead");
    item.tabIndex = 0;
    item.textContent = `${step.move.move} ${valueText(step.move.outcome, step.move.distance)}`;
    onActivate(item, () => task(async () => jump(ply)));
    list.append(item);
  });
  $("#record-area").hidden = app.record.length < 2;
  list.querySelector("[aria-current]")?.scrollIntoView({ block: "nearest" });
}

// The value chart: for each position of the record, the value for the side to move, drawn from the
// first player's side (up: the first player wins, faster wins higher), so the turns of the game show.
function renderChart() {
  const chart = $("#value-chart");
  chart.replaceChildren();
  const first = app.variant.players[0];
  const views = app.record.map((r) => r.view);
  const longest = Math.max(1, ...views.map((v) => v.distance ?? 0));
  const step = 1;
  const width = Math.max(16, views.length - 1) * step;
  const half = 2;
  chart.setAttribute("viewBox", `-0.6 ${-half - 0.6} ${width + 1.2} ${2 * half + 1.2}`);
  chart.setAttribute("preserveAspectRatio", "xMinYMid meet");
  chart.append(svg("line", { class: "axis", x1: 0, y1: 0, x2: width, y2: 0 }));
  chart.append(svg("text", { class: "axis-label", x: 0, y: -half - 0.2 }, `${first} wins`));
  const second = app.variant.players[1];
  chart.append(svg("text", { class: "axis-label", x: 0, y: half + 0.45 }, `${second} wins`));
  const points = views.map((v, ply) => {
    const sign = { win: 1, loss: -1, draw: 0 }[v.outcome];
    if (sign === undefined) return { ply, y: null, v };
    const reach = sign ? half * (1 - (0.6 * (v.distance ?? 0)) / longest) : 0;
    return { ply, y: -(v.to_move === first ? sign : -sign) * reach, v };
  });
  const known = points.filter((p) => p.y !== null);
  if (known.length > 1) {
    chart.append(svg("polyline", { class: "trace", points: known.map((p) => `${p.ply * step},${p.y}`).join(" ") }));
  }
  for (const { ply, y, v } of points) {
    const dot = svg("circle", {
      class: ply === app.at ? "point current" : "point",
      cx: ply * step,
      cy: y ?? 0,
      r: ply === app.at ? 0.28 : 0.2,
      "data-ply": ply,
      "data-outcome": v.outcome ?? "unknown",
      "data-distance": v.distance ?? "",
    });
    dot.append(svg("title", {}, `ply ${ply}: ${v.to_move} to move, ${valueText(v.outcome, v.distance, " in ")}`));
    dot.addEventListener("click", () => task(async () => jump(ply)));
    chart.append(dot);
  }
  $("#chart-area").hidden = app.record.length < 2;
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

// -- the address -------------------------------------------------------------

function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { name: params.get("variant"), position: params.get("position") };
}

// The message for a variant named in a link that this server cannot show.
async function missingVariant(name) {
  try {
    await api(variantPath("", name));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return error.message;
  }
  return `variant ${JSON.stringify(name)} is not built in this database`;
}

// Shows what the address names (after Back, Forward, or an edit of the address).
function followAddress() {
  if (location.hash === app.followed) return;
  app.followed = location.hash;
  const { name, position } = fromHash();
  task(async () => {
    if (name && !app.variants.has(name)) {
      const message = await missingVariant(name);
      await selectVariant(app.variant.variant, null, false);
      throw new Error(message);
    }
    if (name && name !== app.variant.variant) return selectVariant(name, position, false);
    try {
      await goTo(position || app.variant.start, false);
    } catch (error) {
      // the board stays where it was, and so does the address
      show(false);
      throw error;
    }
  });
}

function wire() {
  $("#variant").addEventListener("change", (e) => task(() => selectVariant(e.target.value)));
  $("#undo").addEventListener("click", () => task(async () => undo()));
  $("#best").addEventListener("click", () => {
    if (shown().view.moves.length) task(() => playBest({ engine: false }));
  });
  $("#solve").addEventListener("click", () => task(solve));
  $("#cancel").addEventListener("click", cancel);
  $("#analyse").checked = localStorage.getItem(ANALYSE_KEY) !== "off";
  $("#analyse").addEventListener("change", (e) => {
    localStorage.setItem(ANALYSE_KEY, e.target.checked ? "on" : "off");
    if (e.target.checked) analyse();
    else stopAnalysis();
  });
  $("#restart").addEventListener("click", () => task(() => selectVariant(app.variant.variant)));
  $("#show-line").addEventListener("click", () => task(() => explore("line")));
  $("#show-predecessors").addEventListener("click", () => task(() => explore("predecessors")));
  $("#copy-link").addEventListener("click", copyLink);
  $("#position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    task(() => goTo($("#position").value.trim(), true));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.selection.length) {
      app.selection = [];
      render();
    }
    const typing = e.target.closest?.("input, select, textarea");
    if (typing || e.altKey || e.ctrlKey || e.metaKey || app.record.length < 2) return;
    const to = { ArrowLeft: app.at - 1, ArrowRight: app.at + 1, Home: 0, End: app.record.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    if (to >= 0 && to < app.record.length && to !== app.at) task(async () => jump(to));
  });
  window.addEventListener("popstate", followAddress);
  window.addEventListener("hashchange", followAddress);
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
  const first = app.variants.get(DEFAULT_VARIANT) ?? list.find((v) => v.complete) ?? list[0];
  if (name && !app.variants.has(name)) {
    const message = await missingVariant(name);
    await selectVariant(first.variant, null, false);
    throw new Error(message);
  }
  await selectVariant(name || first.variant, position, false);
}

task(start);
