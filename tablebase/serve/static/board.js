"use strict";
// The web board. It knows no rules: it draws (draw.js) the cells of GET /api/{variant}/layout
// (contract: Game.layout in tablebase/games/base.py) and plays by matching the
// cells a user clicks against the moves the API lists for the position. Variants
// explored by search (not complete) take their moves from GET /api/{variant}/board
// and their values from GET /api/{variant}/solve: a position shown without them is
// searched at once (unless "Analyse positions as they are shown" is off), in slices of
// growing length whose partial answers fill in each move's value as it is proved.
//
// The game played so far is a record of positions (one per ply, the start first);
// the address (#variant=...&position=...) names the position shown, and every move
// adds an entry to the browser's history, so Back and Forward walk through the game.

const $ = (selector) => document.querySelector(selector);
//: Longest search of a position, shown or asked for with Solve (the server caps a request at 30 s too).
const SOLVE_SECONDS = 30;
//: The first request of a search (each next one twice as long): what it proved is shown before the next goes on.
const SLICE_SECONDS = 2;
//: Where the page keeps whether positions are analysed as they are shown.
const ANALYSE_KEY = "tablebase.analyse";
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
    // slices of 2, 4, 8, ... seconds: the first answers come soon, and later ones restart the search less often
    let slice = SLICE_SECONDS;
    for (let left = SOLVE_SECONDS; left > 0; left = SOLVE_SECONDS - elapsed()) {
      const limit = Math.max(Math.min(slice, left), 0.1).toFixed(1);
      slice *= 2;
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
