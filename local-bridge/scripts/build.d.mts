export declare const packageDir: string;
export declare const outFile: string;
export declare function isStale(): boolean;
export declare function build(): Promise<void>;
