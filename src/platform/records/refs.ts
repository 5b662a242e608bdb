// How people (patients, providers) are named in reference objects ({uuid, name}).

/** "First Last". */
export const personName = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`;

/** A person as a reference: `{uuid, name: "First Last"}`. */
export const personRef = (p: { id: string; first_name: string; last_name: string }) => ({ uuid: p.id, name: personName(p) });
