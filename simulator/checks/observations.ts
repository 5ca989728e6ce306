// The observations Hacienda writes on a document it ACCEPTS (Mensaje 1, a bare
// `codigo, mensaje, fila, columna` table, as in the answers quoted in CRLibre/API_Hacienda #50 and
// CRLibre/fe-hacienda-cr-odoo #63): -16 when it was sent after the sending window
// (`maxDocumentAgeMs`, checked with `checkIssueDate`), -37 when the emisor's provincia, cantón and
// distrito are not the ones registered. The simulator holds no taxpayer registry, so -37 comes with
// the `observeLocation` knob, on every document whose Emisor has a Ubicacion.
import type { SimulatorKnobs } from '../knobs.ts';
import { row } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';
import { lateIssueObservation } from './rules-dates.ts';
import { RULE_CODES as C, RULE_TEXTS as T } from './rule-texts.ts';
import { child } from './xml-reader.ts';
import type { Row } from './verdict.ts';

export function observeDocument(ctx: RuleContext, knobs: SimulatorKnobs): Row[] {
  const rows: Row[] = [];
  if (knobs.checkIssueDate) rows.push(...lateIssueObservation(ctx));
  if (knobs.observeLocation && child(ctx.root, 'Emisor', 'Ubicacion')) {
    rows.push(row(C.emisorLocation, T.emisorLocation));
  }
  return rows;
}
