/**
 * Amounts and counts as an Indian reader expects them on screen (the platform's prices are in
 * rupees): written here from the locale's rules, independently of the app's own formatting.
 */
const rupeeFormat = new Intl.NumberFormat("en-IN", { style: "currency", currency: "INR" });
const countFormat = new Intl.NumberFormat("en-IN");

/** `1848.5` → `₹1,848.50`; `123456` → `₹1,23,456.00`. */
export const rupees = (amount: number): string => rupeeFormat.format(amount);

/** `123456` → `1,23,456`. */
export const indianCount = (value: number): string => countFormat.format(value);
