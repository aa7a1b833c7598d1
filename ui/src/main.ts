import { mount } from 'svelte';
import './app/app.css';
import App from './app/App.svelte';
import ClusterApp from './cluster/ClusterApp.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

// `#cluster`: a window the backend opened for a Kafka cluster (its session holds the connection).
export default location.hash === '#cluster' ? mount(ClusterApp, { target }) : mount(App, { target });
