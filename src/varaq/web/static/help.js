// The help page: only the shared page set-up (its text is in help.html).
import { setUpPage } from "./pages.js";

setUpPage();
