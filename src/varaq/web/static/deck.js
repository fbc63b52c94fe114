// How the cards look on this page: the four-colour deck, larger cards on phones and the design
// on the backs, as the player chose them in the table's "Cards" settings (settings.js). Every
// page that shows cards loads this module; deck.css draws from the root element's data.
// A choice made in another tab reaches this one too.

import { applyDeck } from "./settings.js";

applyDeck();
window.addEventListener("storage", (event) => {
  if (event.key === null || event.key.startsWith("varaq-")) applyDeck();
});
