// What the simulator concluded about a document: the terminal state and the reasons, in the two
// shapes Hacienda uses in DetalleMensaje (free text for signature problems, table rows otherwise),
// and the observations that come with an acceptance.

export interface Row {
  code: number;
  message: string;
  line: number;
  column: number;
}

/** Values copied from the document into the MensajeHacienda. */
export interface DocumentSummary {
  nombreEmisor: string;
  tipoIdentificacionEmisor: string;
  numeroCedulaEmisor: string;
  nombreReceptor: string | null;
  tipoIdentificacionReceptor: string | null;
  numeroCedulaReceptor: string | null;
  montoTotalImpuesto: string | null;
  totalFactura: string;
}

export interface Verdict {
  state: 'aceptado' | 'rechazado' | 'error';
  /** Free-text reasons (signature), written before any table. */
  freeText: string[];
  rows: Row[];
  /**
   * Hacienda's observations on an accepted document (-16 sent late, -37 location not as
   * registered): written as a bare table after the preamble, the document still accepted.
   */
  observations?: Row[];
  summary: DocumentSummary;
}
