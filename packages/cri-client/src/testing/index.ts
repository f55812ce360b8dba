export const placeholderTesting = true;
