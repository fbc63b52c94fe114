// What the table page shows at a daily: the day's label (a link back to the daily page), no
// Hint button (the server gives no hints there: everyone plays the same cards unaided), and
// the day's leaderboard instead of a new game when the match is over. The rest is the
// ordinary table.

const $ = (selector) => document.querySelector(selector);
const SHORT_DATE = new Intl.DateTimeFormat("en-GB", {
  day: "numeric", month: "short", timeZone: "UTC",
});

/** Show or hide the daily's parts of the table page for ``table`` (a STATE's ``table``). */
export function showDaily(table) {
  const daily = table && table.daily ? table.daily : null;
  const label = $("#daily-label");
  label.hidden = !daily;
  $("#hint-button").hidden = Boolean(daily);
  $("#over-daily").hidden = !daily;
  $("#over-new-game").hidden = Boolean(daily);
  if (!daily) return;
  const how = daily.late ? " · played late" : daily.counted ? "" : " · not counted";
  // Phones show the short form: "Daily 1 Dec · late".
  const short = `Daily ${SHORT_DATE.format(new Date(`${daily.date}T00:00:00Z`))}${
    daily.late ? " · late" : ""}`;
  const long = document.createElement("span");
  long.className = "long";
  long.textContent = `Daily ${daily.date}${how}`;
  const brief = document.createElement("span");
  brief.className = "short";
  brief.textContent = short;
  label.replaceChildren(long, brief);
  label.setAttribute("aria-label", `Daily ${daily.date}${how}: the day's results`);
  label.href = `/daily/${daily.date}`;
  $("#over-daily").href = `/daily/${daily.date}`;
}
