// The public pages of signing in and of the emails' links: one chunk, loaded by the first of them.
export { SignIn } from './SignIn.tsx';
export { SignUp } from './SignUp.tsx';
export { Confirm } from './Confirm.tsx';
export { Recover } from './Recover.tsx';
export { Reset } from './Reset.tsx';
export { Invitation } from './Invitation.tsx';
