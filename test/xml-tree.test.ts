// The element tree that the simulator's checks and the MensajeHacienda reader read documents
// through: strict XML 1.0 (what is not well-formed is refused with the place), XML 1.0 line ends,
// references replaced, nothing fetched.
import { describe, expect, it } from 'vitest';
import { parseXmlTree, XmlTreeError } from '../hacienda/xml-tree.ts';

describe('parseXmlTree', () => {
  it('keeps elements, namespaces, attributes and text in document order', () => {
    const root = parseXmlTree(
      '\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<a xmlns="urn:x" xmlns:d="urn:d"><b k="1">x<![CDATA[<y>]]></b>t<d:c Algorithm="sha">z</d:c></a>',
    );
    expect([root.localName, root.namespaceURI]).toEqual(['a', 'urn:x']);
    expect(root.children.map((c) => [c.localName, c.namespaceURI])).toEqual([
      ['b', 'urn:x'],
      ['c', 'urn:d'],
    ]);
    expect(root.textContent).toBe('x<y>tz');
    expect(root.children[0]!.getAttribute('k')).toBe('1');
    expect(root.children[1]!.getAttribute('Algorithm')).toBe('sha');
    expect(root.children[1]!.getAttribute('missing')).toBeNull();
  });

  it('normalises line ends the XML 1.0 way and replaces references', () => {
    expect(parseXmlTree('<a>1\r\n2\r3\u00854\u2028</a>').textContent).toBe('1\n2\n3\u00854\u2028');
    expect(parseXmlTree('<a>&amp;&lt;&#233;&#x41;</a>').textContent).toBe('&<éA');
  });

  it.each([
    ['an undefined entity', '<a>&nbsp;</a>'],
    ['an entity declared in a DOCTYPE', '<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>'],
    ['crossed tags', '<a><b></a>'],
    ['two roots', '<a/><b/>'],
    ['text outside the root', '<a/>x'],
    ['an undeclared prefix', '<x:a/>'],
    ['nothing', ''],
    ['a control character', '<a>\u0001</a>'],
    ['a doubled attribute', '<a b="1" b="2"/>'],
  ])('refuses %s', (_, xml) => {
    expect(() => parseXmlTree(xml)).toThrow(XmlTreeError);
  });
});
