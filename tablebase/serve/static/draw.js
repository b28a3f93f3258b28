"use strict";
// The web board's drawing: the board from GET /api/{variant}/layout, the status, the moves with
// their values, the game record and its chart, from the view shown (board.js holds the state,
// the requests and the actions; it is loaded after this file).

const SVG = "http://www.w3.org/2000/svg";
//: Boards with more cells than this show compact values ("W13" for "win 13").
const COMPACT_ABOVE = 25;

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
