import { main } from './main';

main(process.argv.slice(2));
