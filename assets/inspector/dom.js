// @ts-check
/**
 * Builds DOM nodes from plain data. Text always becomes a text node (never innerHTML), so event
 * content cannot inject markup.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
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

function appendChildren(element, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: `h('button', { type: 'button', onclick }, 'Text')`. */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/** An SVG element, same arguments as `h`. */
export function s(tag, attributes, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}
