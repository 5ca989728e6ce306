// Setting a company up: the new-company wizard and the company's settings, one chunk.
export { NewCompany } from './NewCompany.tsx';
export { CompanySettings } from './CompanySettings.tsx';
