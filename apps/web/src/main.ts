// Entry point: mounts the app. The only module with import-time side effects.
import { mount } from 'svelte'
import App from './App.svelte'
import './app.css'
import { registerOfflineApp } from './lib/yfs/offline-app.js'

performance.mark('yfs:app-script')
const target = document.getElementById('app')
if (!target) throw new TypeError('index.html has no #app element')
mount(App, { target })
void registerOfflineApp()
