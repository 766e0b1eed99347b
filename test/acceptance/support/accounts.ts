/**
 * Fresh accounts for each test, so suites never depend on each other's data or order.
 */
import { expect } from "chai";
import { api } from "./api.js";
import { acceptanceEnvironment } from "./environment.js";

export interface TestUser {
  readonly email: string;
  readonly password: string;
  readonly fullName: string;
  readonly phoneNo: string;
  readonly token: string;
}

let counter = 0;

export function uniqueEmail(label = "user"): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}.${process.pid}.${counter}@example.test`;
}

export function registration(label?: string): {
  fullName: string;
  email: string;
  phoneNo: string;
  password: string;
} {
  return {
    fullName: "Asha Verma",
    email: uniqueEmail(label),
    phoneNo: "+919876543210",
    password: "correct horse battery",
  };
}

export async function login(email: string, password: string): Promise<string> {
  const response = await api("POST", "/api/auth/login", { body: { email, password } });
  expect(response.status, response.text).to.equal(200);
  return (response.body as { token: string }).token;
}

export async function registeredUser(label?: string): Promise<TestUser> {
  const input = registration(label);
  const response = await api("POST", "/api/auth/register", { body: input });
  expect(response.status, response.text).to.equal(201);
  return { ...input, token: await login(input.email, input.password) };
}

let adminToken: string | undefined;

export async function adminLogin(): Promise<string> {
  const { adminEmail, adminPassword } = acceptanceEnvironment();
  adminToken ??= await login(adminEmail, adminPassword);
  return adminToken;
}

/**
 * Registers `email` again, as someone else, after its account was deleted (201), and logs in:
 * a new account's token.
 */
export async function registeredAgain(email: string, password = "another password"): Promise<string> {
  const again = await api("POST", "/api/auth/register", {
    body: { fullName: "Someone Else", email, phoneNo: "+919999999999", password },
  });
  expect(again.status, again.text).to.equal(201);
  return login(email, password);
}
