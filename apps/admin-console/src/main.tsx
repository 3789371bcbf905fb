import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

performance.mark('console:start');
render(<App />, document.getElementById('app')!);
