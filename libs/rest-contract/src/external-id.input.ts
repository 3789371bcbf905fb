import { Input } from './input-property.decorator.js';

/** The longest id in another system a record may carry. */
const EXTERNAL_ID_MAX = 200;

/**
 * The `external_id` input of a record that mirrors one in another system (accounts, portal users):
 * optional text of at most {@link EXTERNAL_ID_MAX} characters, `null` for none, unique in the
 * organisation (the owner's repository answers CONFLICT). Declared once, so both resources take it
 * alike.
 */
export const ExternalId = {
  /** On create; `whose` names the record in the description ("The company’s"). */
  create: (whose: string): PropertyDecorator =>
    Input.optionalText({
      type: String,
      nullable: true,
      maxLength: EXTERNAL_ID_MAX,
      description: `${whose} id in another system (e.g. a CRM); unique in the organisation (else CONFLICT).`,
    }),
  /** On PATCH, where `null` clears it. */
  update: (): PropertyDecorator =>
    Input.optionalText({
      type: String,
      nullable: true,
      maxLength: EXTERNAL_ID_MAX,
      description: 'New id in another system, unique in the organisation; null clears it.',
    }),
};
