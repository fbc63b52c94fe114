// Soft card sounds made with WebAudio: short filtered noise for a card, a low knock for a
// trick gathered, two quiet notes when the table waits for the player. No audio files.
//
// Nothing sounds until the player turns sound on. Browsers let audio start only after the
// player has done something on the page (a click, a tap, a key), and warn about every audio
// context made or resumed before that — so with sound remembered as on, the context is made
// at the page's first gesture, not at load; sounds asked for before it are simply skipped.

let context = null;
let enabled = false;
/** Whether the player has clicked, tapped or pressed a key on this page yet. */
let gestured = Boolean(navigator.userActivation && navigator.userActivation.hasBeenActive);

/** The events that count as a gesture for the browser's autoplay rule (touch counts on its
 *  end, a mouse on its press). */
const GESTURES = ["pointerdown", "pointerup", "touchend", "click", "keydown"];

function onGesture() {
  // Where the browser says whether this event activated the page, believe it (a pointerdown
  // of a touch does not yet); elsewhere, any of these events will do.
  if (navigator.userActivation && !navigator.userActivation.isActive) return;
  gestured = true;
  for (const type of GESTURES) window.removeEventListener(type, onGesture, true);
  if (enabled) audio();
}

if (!gestured) {
  // Capturing, so the context is ready before the click's own handler plays a sound.
  for (const type of GESTURES) window.addEventListener(type, onGesture, true);
}

function audio() {
  if (!gestured) return null;
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

export function setEnabled(on) {
  enabled = Boolean(on);
  if (enabled) audio();
}

/** A burst of noise through a band-pass filter: the slide and snap of a card on felt. */
function swish(ctx, at, { freq, length, volume }) {
  const frames = Math.floor(ctx.sampleRate * length);
  const buffer = ctx.createBuffer(1, frames, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 2;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = 0.9;
  const gain = ctx.createGain();
  gain.gain.value = volume;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start(at);
}

/** A short sine note that fades out. */
function note(ctx, at, { freq, length, volume }) {
  const osc = ctx.createOscillator();
  osc.type = "sine";
  osc.frequency.value = freq;
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.015);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const SOUNDS = {
  card: (ctx, t) => swish(ctx, t, { freq: 1800, length: 0.09, volume: 0.22 }),
  trick: (ctx, t) => {
    swish(ctx, t, { freq: 900, length: 0.12, volume: 0.16 });
    swish(ctx, t + 0.07, { freq: 700, length: 0.12, volume: 0.12 });
  },
  deal: (ctx, t) => {
    for (let i = 0; i < 4; i++) swish(ctx, t + i * 0.05, { freq: 2000, length: 0.05, volume: 0.1 });
  },
  turn: (ctx, t) => {
    note(ctx, t, { freq: 660, length: 0.18, volume: 0.035 });
    note(ctx, t + 0.11, { freq: 880, length: 0.22, volume: 0.03 });
  },
};

/** Play one of "card", "trick", "deal" or "turn", if sound is on. */
export function play(name) {
  if (!enabled || !SOUNDS[name]) return;
  const ctx = audio();
  if (!ctx) return;
  try {
    SOUNDS[name](ctx, ctx.currentTime + 0.01);
  } catch {
    // A browser without some audio node simply stays silent.
  }
}
