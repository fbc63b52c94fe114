// @ts-check
// Finding the table page's elements, typed for the type checker (tsc --checkJs).

/**
 * The element ``selector`` names, as an element of ``type`` (an ``HTMLElement`` when none is
 * given). The page's markup always has it: a missing one is a bug, so it throws at once.
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {{new (...args: any[]): T, prototype: T}} [type]
 * @returns {T}
 */
export function $(selector, type) {
  const node = document.querySelector(selector);
  if (!node || (type && !(node instanceof type))) {
    throw new Error(`the page has no ${type ? type.name : "element"} ${selector}`);
  }
  return /** @type {T} */ (node);
}

/** @param {string} selector */
export const button = (selector) => $(selector, HTMLButtonElement);
/** @param {string} selector */
export const dialog = (selector) => $(selector, HTMLDialogElement);
/** @param {string} selector */
export const input = (selector) => $(selector, HTMLInputElement);

/**
 * A new element with a class and text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
