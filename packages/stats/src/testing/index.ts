export const TESTING = true;
