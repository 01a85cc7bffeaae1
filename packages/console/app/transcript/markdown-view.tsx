/** Markdown (markdown.ts's tree) as elements: text stays text, so nothing in a message becomes HTML or script. */
import type { ComponentChildren } from 'preact';
import { type MdBlock, type MdInline, parseMarkdown } from './markdown.js';

function inline(nodes: MdInline[]): ComponentChildren {
  return nodes.map((node, index) => {
    switch (node.t) {
      case 'text':
        return node.v;
      case 'code':
        return <code key={index}>{node.v}</code>;
      case 'br':
        return <br key={index} />;
      case 'strong':
        return <strong key={index}>{inline(node.c)}</strong>;
      case 'em':
        return <em key={index}>{inline(node.c)}</em>;
      case 'link':
        return (
          <a key={index} href={node.href} rel="noreferrer nofollow" target="_blank">
            {inline(node.c)}
          </a>
        );
    }
    return null;
  });
}

function blocks(nodes: MdBlock[]): ComponentChildren {
  return nodes.map((node, index) => {
    switch (node.t) {
      case 'p':
        return <p key={index}>{inline(node.c)}</p>;
      case 'h': {
        // Within a page's sections: a message's headings sit below the h3 of its entry.
        const Heading = `h${Math.min(6, node.level + 3)}` as 'h4';
        return <Heading key={index}>{inline(node.c)}</Heading>;
      }
      case 'pre':
        return (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a long line scrolls in its block; keyboard users focus it to scroll it (WCAG 2.1.1)
          <pre key={index} tabIndex={0}>
            <code>{node.v}</code>
          </pre>
        );
      case 'ul':
        return (
          <ul key={index}>
            {node.items.map((item, at) => (
              <li key={at}>{listItem(item)}</li>
            ))}
          </ul>
        );
      case 'ol':
        return (
          <ol key={index} start={node.start}>
            {node.items.map((item, at) => (
              <li key={at}>{listItem(item)}</li>
            ))}
          </ol>
        );
      case 'quote':
        return <blockquote key={index}>{blocks(node.c)}</blockquote>;
      case 'hr':
        return <hr key={index} />;
    }
    return null;
  });
}

/** A list item of one paragraph is its text (a tight list); of more, its blocks. */
const listItem = (item: MdBlock[]): ComponentChildren => (item.length === 1 && item[0]?.t === 'p' ? inline(item[0].c) : blocks(item));

/** `text` read as Markdown. */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{blocks(parseMarkdown(text))}</div>;
}
