// The API reference of this platform: Swagger UI over the document this origin serves. Nothing
// is fetched from elsewhere: no validator badge, no fonts; "Try it out" calls this same origin,
// with the token pasted under "Authorize" (kept in this browser's storage for the next visit).
window.addEventListener("load", () => {
  window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#reference",
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: true,
    displayRequestDuration: true,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
  });
});
