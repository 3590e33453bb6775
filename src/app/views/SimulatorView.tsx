export { SimulatorView } from '../simulator/SimulatorView.tsx';
