import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions, type DatabaseTimeouts } from './data-source-options.js';

@Module({})
export class DatabaseModule {
  /** `url` is resolved by the bootstrap (external Postgres, or the embedded one it started). */
  static forRoot(url: string, poolSize: number, timeouts?: DatabaseTimeouts): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(url, poolSize, timeouts),
          migrationsRun: false,
          logging: false,
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
