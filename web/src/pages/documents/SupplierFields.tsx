// The supplier of a factura electrónica de compra (08): who sold to the company without issuing
// an electronic document (name, identification and its type).
import { useTranslation } from 'react-i18next';
import { Field } from '../../ui/forms.tsx';
import { Select } from '../../ui/select.tsx';

export interface Supplier {
  name: string;
  identification: string;
  identification_type: '01' | '02' | '03' | '04' | '05' | '06';
}

export function emptySupplier(): Supplier {
  return { name: '', identification: '', identification_type: '01' };
}

export function SupplierFields({
  value,
  onChange,
  fieldError,
}: {
  value: Supplier;
  onChange(s: Supplier): void;
  fieldError(path: string): string | null;
}) {
  const { t } = useTranslation();
  return (
    <fieldset className="card">
      <legend>{t('doc.supplier')}</legend>
      <Field
        label={t('clients.name')}
        value={value.name}
        onChange={(e) => onChange({ ...value, name: e.target.value })}
        error={fieldError('supplier/name')}
      />
      <Select
        id="sup-type"
        label={t('clients.idType')}
        value={value.identification_type}
        onChange={(v) => onChange({ ...value, identification_type: v as Supplier['identification_type'] })}
        options={['01', '02', '03', '04', '05', '06']}
        render={(v) => t(`idTypes.${v}`)}
      />
      <Field
        label={t('clients.cedula')}
        value={value.identification}
        inputMode="numeric"
        onChange={(e) => onChange({ ...value, identification: e.target.value })}
        error={fieldError('supplier/identification')}
      />
    </fieldset>
  );
}
