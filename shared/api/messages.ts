/** DRF's wording (3.15), in one place: api.md §1 says every message word for word. */
export const MESSAGES = {
  lastSuperuser: 'This is the last active superuser of the workspace: make another user a superuser first.',
  notFound: 'Not found.',
  invalidPage: 'Invalid page.',
  notAcceptable: 'Could not satisfy the request Accept header.',
  notAuthenticated: 'Authentication credentials were not provided.',
  invalidToken: 'Invalid token.',
  tokenNoCredentials: 'Invalid token header. No credentials provided.',
  tokenSpaces: 'Invalid token header. Token string should not contain spaces.',
  tokenInvalidCharacters: 'Invalid token header. Token string should not contain invalid characters.',
  userInactive: 'User inactive or deleted.',
  permissionDenied: 'You do not have permission to perform this action.',
  csrfMissing: 'CSRF Failed: CSRF token missing.',
  csrfIncorrect: 'CSRF Failed: CSRF token incorrect.',
  invalidHost: 'Invalid Host header.',
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  null: 'This field may not be null.',
  notAString: 'Not a valid string.',
  notAnInteger: 'A valid integer is required.',
  integerTooLong: 'String value too large.',
  notABoolean: 'Must be a valid boolean.',
  nullCharacters: 'Null characters are not allowed.',
  invalidAddress: 'Enter a valid IPv4 or IPv6 address.',
  invalidEmail: 'Enter a valid email address.',
  invalidUsername:
    'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
  enterNumber: 'Enter a number.',
  enterDateTime: 'Enter a valid date/time.',
  invalidDate: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  nameRepeated: 'This name is already used in this list.',
  cycle: 'A template cannot inherit from itself or its descendants.',
  invalidIp: 'Invalid IP address.',
  wrongPassword: 'Wrong password.',
  /** DRF's wording when a serializer is given `null` as its whole data. */
  noData: 'No data provided',
} as const;

export const message = {
  searchTooLong: (limit: number) => `Ensure the search has no more than ${limit} characters.`,
  searchTooManyTerms: (limit: number) => `Ensure the search has no more than ${limit} different terms.`,
  methodNotAllowed: (method: string) => `Method "${method}" not allowed.`,
  unsupportedMediaType: (type: string) => `Unsupported media type "${type}" in request.`,
  jsonParseError: (reason: string) => `JSON parse error - ${reason}`,
  expectedDictionary: (got: string) => `Invalid data. Expected a dictionary, but got ${got}.`,
  expectedList: (got: string) => `Expected a list of items but got type "${got}".`,
  invalidChoice: (value: string) => `"${value}" is not a valid choice.`,
  filterChoice: (value: string) => `Select a valid choice. ${value} is not one of the available choices.`,
  maxLength: (max: number) => `Ensure this field has no more than ${max} characters.`,
  minValue: (min: number) => `Ensure this value is greater than or equal to ${min}.`,
  maxValue: (max: number) => `Ensure this value is less than or equal to ${max}.`,
  invalidPk: (pk: string) => `Invalid pk "${pk}" - object does not exist.`,
  incorrectPkType: (type: string) => `Incorrect type. Expected pk value, received ${type}.`,
  inherited: (template: string) =>
    `This field is inherited from template "${template}"; add it to overriden_fields to change it.`,
  interfaceInherited: (template: string) =>
    `This interface is inherited from template "${template}"; override interfaces to delete it.`,
  templateUsed: (template: string, users: readonly string[]) => `Template "${template}" is used by: ${users.join(', ')}`,
};

/** Python's type name of a parsed JSON value, as DRF's messages print it. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'object':
      return 'dict';
    default:
      return typeof value;
  }
}
