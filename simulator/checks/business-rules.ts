// The business rules Hacienda applies to a comprobante after its schema, each behind its own knob
// so a test can show what a lenient Hacienda would do. Texts and codes: rule-texts.ts; the rules
// themselves: rules-codes.ts, rules-terms.ts, rules-dates.ts.
import type { SimulatorKnobs } from '../knobs.ts';
import type { Rule, RuleContext } from './rule-context.ts';
import {
  activityCodeRule,
  cabysRule,
  exchangeRateRule,
  identificationRule,
  locationRule,
  tariffDocumentTypeRule,
  tariffRateRule,
} from './rules-codes.ts';
import { exonerationRule, issueDateRule, referencesRule } from './rules-dates.ts';
import { exportRule } from './rules-exports.ts';
import {
  creditTermRule,
  lineNumbersRule,
  otherChargesRule,
  otherTextsRule,
  paymentMethodsRule,
  taxBreakdownRule,
} from './rules-terms.ts';
import type { Row } from './verdict.ts';

export type BusinessRuleKnob =
  | 'checkCabys'
  | 'checkActivityCode'
  | 'checkLocation'
  | 'checkTariffRate'
  | 'checkTariffDocumentType'
  | 'checkIdentification'
  | 'checkExchangeRate'
  | 'checkCreditTerm'
  | 'checkOtherTexts'
  | 'checkPaymentMethods'
  | 'checkTaxBreakdown'
  | 'checkExonerations'
  | 'checkOtherCharges'
  | 'checkLineNumbers'
  | 'checkReferences'
  | 'checkIssueDate'
  | 'checkExportRules';

/** In the order their rows appear in DetalleMensaje. */
export const BUSINESS_RULES: Readonly<Record<BusinessRuleKnob, Rule>> = {
  checkIssueDate: issueDateRule,
  checkIdentification: identificationRule,
  checkLocation: locationRule,
  checkActivityCode: activityCodeRule,
  checkCreditTerm: creditTermRule,
  checkLineNumbers: lineNumbersRule,
  checkCabys: cabysRule,
  checkTariffRate: tariffRateRule,
  checkTariffDocumentType: tariffDocumentTypeRule,
  checkExonerations: exonerationRule,
  checkOtherCharges: otherChargesRule,
  checkExchangeRate: exchangeRateRule,
  checkTaxBreakdown: taxBreakdownRule,
  checkPaymentMethods: paymentMethodsRule,
  checkReferences: referencesRule,
  checkOtherTexts: otherTextsRule,
  checkExportRules: exportRule,
};

export const BUSINESS_RULE_KNOBS = Object.keys(BUSINESS_RULES) as BusinessRuleKnob[];

export function checkBusinessRules(ctx: RuleContext, knobs: SimulatorKnobs): Row[] {
  return BUSINESS_RULE_KNOBS.flatMap((knob) => (knobs[knob] ? BUSINESS_RULES[knob](ctx) : []));
}
