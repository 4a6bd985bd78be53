// A play built by clicking, as the study board, lessons and puzzles let one be made: the boards
// (seen by the side on roll, gnubg's layout), the steps [from, to, hit] and the checker picked.
// The server judges whether the play is legal; this only keeps the boards in step with the clicks.
export function newPlay(mine, theirs) { return { mine: mine.slice(), theirs: theirs.slice(), steps: [], selected: null }; }
export function copyPlay(play) { return { mine: play.mine.slice(), theirs: play.theirs.slice(), steps: play.steps.map((st) => st.slice()), selected: null }; }
export function playText(play) { return play.steps.map((st) => `${st[0] === 25 ? "bar" : st[0]}/${st[1] === 0 ? "off" : st[1]}${st[2] ? "*" : ""}`).join(" "); }
// one click of click-click moving: pick a checker, then its destination
export function playClick(play, p) {
  if (p === null || p === undefined) return;
  const has = (q) => (q === 25 ? play.mine[24] : q >= 1 && q <= 24 ? play.mine[q - 1] : 0) > 0;
  if (play.selected === null) { if (has(p)) play.selected = p; return; }
  const from = play.selected;
  play.selected = null;
  if (p === from || p === 25 || p > from) { if (has(p) && p !== from) play.selected = p; return; }
  play.mine[from === 25 ? 24 : from - 1]--;
  let hit = false;
  if (p >= 1) {
    play.mine[p - 1]++;
    if (play.theirs[24 - p] === 1) { play.theirs[24 - p] = 0; play.theirs[24]++; hit = true; }
  }
  play.steps.push([from, p, hit]);
}
