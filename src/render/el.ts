/**
 * Builds the element trees satori lays out, without JSX: satori reads React-element-shaped objects
 * (`{ type, props: { style, children } }`), so a tiny constructor is all the cards need.
 */

export type Style = Record<string, string | number>;

export interface El {
  type: string;
  props: { style?: Style; children?: Child | Child[]; src?: string; width?: number; height?: number };
}

export type Child = El | string;

/** A `div` (flex, and border-box: satori's default box adds the padding to the width) with a style and children. */
export function div(style: Style, ...children: Child[]): El {
  return { type: 'div', props: { style: { display: 'flex', boxSizing: 'border-box', ...style }, children } };
}

/** A block of text: one string child, so satori wraps it at word boundaries. */
export function text(style: Style, content: string): El {
  return { type: 'div', props: { style: { display: 'flex', ...style }, children: content } };
}

/** An image (a data: URI) drawn at the given size. */
export function img(src: string, width: number, height: number, style: Style = {}): El {
  return { type: 'img', props: { src, width, height, style } };
}
