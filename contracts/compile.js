// Compiles src/*.sol with the pinned solc (npm) and writes one artifact per contract to
// ../src/snowfield/workload/artifacts/<Name>.json: {abi, bytecode, deployedBytecode}.
const fs = require("fs");
const path = require("path");
const solc = require("solc");

const srcDir = path.join(__dirname, "src");
const outDir = path.join(__dirname, "..", "src", "snowfield", "workload", "artifacts");
const sources = {};
for (const file of fs.readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[file] = { content: fs.readFileSync(path.join(srcDir, file), "utf8") };
}
const input = {
  language: "Solidity",
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "cancun",
    metadata: { bytecodeHash: "none" },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
function findImports(importPath) {
  try {
    return { contents: fs.readFileSync(require.resolve(importPath), "utf8") };
  } catch (err) {
    return { error: `not found: ${importPath}` };
  }
}
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (output.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
fs.mkdirSync(outDir, { recursive: true });
let count = 0;
for (const file of Object.keys(sources)) {
  for (const [name, contract] of Object.entries(output.contracts[file])) {
    if (!contract.evm.bytecode.object) continue;  // an interface: nothing to deploy
    const artifact = {
      abi: contract.abi,
      bytecode: "0x" + contract.evm.bytecode.object,
      contractName: name,
      deployedBytecode: "0x" + contract.evm.deployedBytecode.object,
      compiler: `solc ${solc.version()}`,
    };
    fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(artifact, null, 1) + "\n");
    count++;
  }
}
console.log(`wrote ${count} artifacts to ${outDir}`);
