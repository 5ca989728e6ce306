// Schema validation for tests, with the configured XSD directory (XSD_DIR) as the default:
// hacienda/xsd.ts takes the directory from its caller, since below the entry points nothing
// reads the configuration; tests read it here, once, like a process's entry point does.
import { loadConfig } from '../../config/index.ts';
import {
  schemaPath as schemaPathIn,
  validateXml as validateXmlIn,
  validateXmlBatch as validateXmlBatchIn,
  type SchemaDocumentType,
  type SchemaOptions,
  type SchemaValidationResult,
} from '../../hacienda/xsd.ts';

const XSD_DIR = loadConfig().xsdDir;

type Options = Partial<SchemaOptions>;

export const schemaPath = (docType: SchemaDocumentType, options: Options = {}): string =>
  schemaPathIn(docType, { schemaDir: XSD_DIR, ...options });

export const validateXml = (
  docType: SchemaDocumentType,
  xml: string | Uint8Array,
  options: Options = {},
): Promise<SchemaValidationResult> => validateXmlIn(docType, xml, { schemaDir: XSD_DIR, ...options });

export const validateXmlBatch = (
  docType: SchemaDocumentType,
  documents: readonly (string | Uint8Array)[],
  options: Options = {},
): Promise<SchemaValidationResult[]> =>
  validateXmlBatchIn(docType, documents, { schemaDir: XSD_DIR, ...options });
