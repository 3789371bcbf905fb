export { ConfirmationPageModule } from './confirmation-page.module.js';
export { ConfirmationPage, type PageOutcome } from './confirmation-page.service.js';
