// The dashboards' section: the overview's charts and live runs, and the charts of agent and model
// pages. Loaded on demand (with uPlot) by the overview and by the agents' and models' sections.
export { Dashboard } from './Dashboard';
export { EntityCharts } from './EntityCharts';
