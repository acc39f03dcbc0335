import { textForms } from './product-text';

describe('textForms', () => {
  it('turns plain text into escaped HTML paragraphs with line breaks', () => {
    expect(textForms('Soft & warm <3\r\nHand made.\n\n\nWash cold.')).toEqual({
      plain: 'Soft & warm <3\nHand made.\n\n\nWash cold.',
      html: '<p>Soft &amp; warm &lt;3<br>Hand made.</p><p>Wash cold.</p>',
    });
  });

  it('passes the ERP HTML on and strips it for the plain form', () => {
    expect(textForms('<p>Soft&nbsp;<b>merino</b> &amp; silk</p><ul><li>Warm</li><li>Light</li></ul><script>x()</script>')).toEqual({
      plain: 'Soft merino & silk\n\nWarm\n\nLight',
      html: '<p>Soft&nbsp;<b>merino</b> &amp; silk</p><ul><li>Warm</li><li>Light</li></ul><script>x()</script>',
    });
  });

  it('leaves an empty text empty in both forms', () => {
    expect(textForms('')).toEqual({ plain: '', html: '' });
  });
});
