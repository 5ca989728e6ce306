// The version of the PDF layout, apart from the renderer: the PDF cache key needs it on every read,
// and this module costs nothing to load, whereas documents/invoice-pdf.ts brings pdfkit, its fonts
// and the QR encoder (loaded only when a PDF is actually rendered).

/** Bumped when the layout changes, so cached PDFs of the old layout are rendered again. */
export const PDF_LAYOUT_VERSION = 1;
