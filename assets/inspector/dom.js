// @ts-check
/**
 * Builds DOM nodes from plain data. Text always becomes a text node (never innerHTML), so event
 * content cannot inject markup.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * An attribute's value: `true` sets it empty, `false`, `null` and `undefined` leave it out.
 * @typedef {string | number | boolean | null | undefined} AttributeValue
 */
/**
 * Attributes by name (`className` is `class`), `on<event>` listeners, and `dataset` (its
 * entries become `data-*` attributes).
 * @typedef {{ [name: string]: AttributeValue | ((event: Event) => void)
 *   | { [key: string]: AttributeValue } }} Attributes
 */
/**
 * What `h` and `s` append: a node, text (a number too), nothing (`null`, `undefined`, `false`
 * are skipped), or arrays of them, flattened (two deep in the types: a JSDoc type cannot name
 * itself; the code flattens any depth).
 * @typedef {Node | string | number | boolean | null | undefined} ChildItem
 * @typedef {ChildItem | Array<ChildItem | ChildItem[]>} Child
 */

/**
 * @param {HTMLElement | SVGElement} element
 * @param {Attributes | null | undefined} attributes
 */
function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset' && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined && item !== null) element.dataset[key] = String(item);
      }
    } else {
      element.setAttribute(
        name === 'className' ? 'class' : name,
        value === true ? '' : String(value),
      );
    }
  }
}

/**
 * @param {Element} element
 * @param {Child[]} children
 */
function appendChildren(element, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * An HTML element: `h('button', { type: 'button', onclick }, 'Text')`.
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[Tag]}
 */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/**
 * An SVG element, same arguments as `h`.
 * @template {keyof SVGElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[Tag]}
 */
export function s(tag, attributes, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}
