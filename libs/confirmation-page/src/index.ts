export { ConfirmationPageModule } from './confirmation-page.module.js';
export { ConfirmationPage } from './confirmation-page.service.js';
