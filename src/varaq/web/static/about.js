// The About Spades page and the page for an unknown address: only the shared page set-up
// (their text is in about.html and notfound.html).
import { setUpPage } from "./pages.js";

setUpPage();
