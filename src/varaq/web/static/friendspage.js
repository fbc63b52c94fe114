// @ts-check
// One's own profile page (rendered by the server, web/players.py) shows the Friends panel:
// this starts the page's socket and draws the panel into its empty section.

import { showFriends, startFriends } from "./friends.js";

startFriends();
showFriends();
